import { randomBytes } from 'node:crypto';

import { isRecord, queryParams, readBody, sendJson, type RequestContext } from './http';
import { Prng } from './prng';
import type { ExecutionResult, Money, SandboxStats, SandboxSwitches, Trade } from './types';

// ---------------------------------------------------------------------------
// Reference data
// ---------------------------------------------------------------------------

export const COUNTERPARTS: ReadonlyArray<{ id: string; name: string }> = [
	{ id: 'NORDTIMB1', name: 'Nordic Timber Holding A/S' },
	{ id: 'BALTSHIP1', name: 'Baltic Shipping Oy' },
	{ id: 'AROSFOOD1', name: 'Aros Food Group AB' },
	{ id: 'FJORDENE1', name: 'Fjord Energy AS' },
	{ id: 'HANSEMET1', name: 'Hanse Metals GmbH' },
	{ id: 'KBHPHARM1', name: 'Kobenhavn Pharma ApS' },
	{ id: 'LAPLMIN1', name: 'Lapland Minerals Oy' },
	{ id: 'GOTHAUTO1', name: 'Gothenburg Automotive AB' },
	{ id: 'THAMESTR1', name: 'Thames Trading Ltd' },
	{ id: 'ALPINSTR1', name: 'Alpine Instruments AG' },
	{ id: 'VISTLOGI1', name: 'Vistula Logistics Sp. z o.o.' },
	{ id: 'DEMOCP1', name: 'DEMOCP' },
];

/** Units of each currency per 1 EUR (mid rates used for generated prices). */
const EUR_RATES: Record<string, number> = {
	EUR: 1,
	USD: 1.085,
	GBP: 0.858,
	DKK: 7.4605,
	SEK: 11.42,
	NOK: 11.63,
	CHF: 0.951,
	JPY: 162.4,
	PLN: 4.31,
	CAD: 1.472,
	AUD: 1.641,
	CZK: 25.18,
	HUF: 394.6,
	NZD: 1.792,
	SGD: 1.458,
	HKD: 8.47,
	CNY: 7.83,
	ISK: 149.8,
	RON: 4.97,
	ZAR: 20.1,
	MXN: 18.6,
	TRY: 35.2,
	INR: 90.4,
	BGN: 1.9558,
};

export const CURRENCIES: ReadonlySet<string> = new Set(Object.keys(EUR_RATES));

/** Annual interest rates used for forward points. */
const INTEREST: Record<string, number> = {
	EUR: 0.03,
	USD: 0.045,
	GBP: 0.047,
	DKK: 0.031,
	SEK: 0.032,
	NOK: 0.045,
	CHF: 0.012,
	JPY: 0.002,
	PLN: 0.058,
	CAD: 0.04,
	AUD: 0.042,
};

const PAIRS: ReadonlyArray<readonly [string, string]> = [
	['EUR', 'DKK'],
	['EUR', 'SEK'],
	['EUR', 'NOK'],
	['EUR', 'USD'],
	['GBP', 'USD'],
	['USD', 'JPY'],
	['EUR', 'GBP'],
	['EUR', 'CHF'],
	['USD', 'SEK'],
	['USD', 'NOK'],
	['EUR', 'PLN'],
	['USD', 'CAD'],
	['AUD', 'USD'],
	['USD', 'DKK'],
];

const PRODUCTS: ReadonlyArray<readonly [string, number]> = [
	['Spot', 35],
	['Forward', 20],
	['FWD', 15],
	['FX Swap', 15],
	['FX Forward', 15],
];

const COMMENTS = [
	'Hedge of Q3 payables',
	'Urgent client request',
	'Rollover of maturing forward',
	'Dividend repatriation',
	'Supplier invoice 2024-117',
	'Monthly payroll funding',
	'Budget rate hedge',
	'Intercompany loan settlement',
];

/** Tenors the bank's execution API accepts. */
export const TENORS = 'ON TOM TN SP SN 1W 2W 3W 1M 2M 3M 4M 5M 6M 7M 8M 9M 10M 11M 15M 18M 1Y 2Y 3Y 4Y 5Y'.split(' ');

const DAY_MS = 24 * 60 * 60 * 1000;

// ---------------------------------------------------------------------------
// Date helpers (UTC, YYYY-MM-DD)
// ---------------------------------------------------------------------------

export const isoDate = (date: Date): string => date.toISOString().slice(0, 10);

export function parseIsoDate(value: string): Date | undefined {
	if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
	const date = new Date(`${value}T00:00:00.000Z`);
	if (Number.isNaN(date.getTime()) || isoDate(date) !== value) return undefined;
	return date;
}

function isWeekend(date: Date): boolean {
	const day = date.getUTCDay();
	return day === 0 || day === 6;
}

export function addBusinessDays(date: Date, days: number): Date {
	let result = new Date(date.getTime());
	let left = days;
	while (left > 0) {
		result = new Date(result.getTime() + DAY_MS);
		if (!isWeekend(result)) left -= 1;
	}
	return result;
}

function nextBusinessDay(date: Date): Date {
	let result = new Date(date.getTime());
	while (isWeekend(result)) result = new Date(result.getTime() + DAY_MS);
	return result;
}

function addMonths(date: Date, months: number): Date {
	const result = new Date(date.getTime());
	const day = result.getUTCDate();
	result.setUTCDate(1);
	result.setUTCMonth(result.getUTCMonth() + months);
	const lastDay = new Date(
		Date.UTC(result.getUTCFullYear(), result.getUTCMonth() + 1, 0),
	).getUTCDate();
	result.setUTCDate(Math.min(day, lastDay));
	return result;
}

/** Maturity (value) date of a tenor traded on `tradeDate`. */
export function tenorToDate(tenor: string, tradeDate: Date): Date {
	const today = new Date(
		Date.UTC(tradeDate.getUTCFullYear(), tradeDate.getUTCMonth(), tradeDate.getUTCDate()),
	);
	const spot = addBusinessDays(today, 2);
	switch (tenor) {
		case 'ON':
			return nextBusinessDay(today);
		case 'TOM':
		case 'TN':
			return addBusinessDays(today, 1);
		case 'SP':
			return spot;
		case 'SN':
			return addBusinessDays(spot, 1);
		default: {
			const match = /^(\d+)([WMY])$/.exec(tenor);
			if (!match) return spot;
			const amount = Number(match[1]);
			if (match[2] === 'W') return nextBusinessDay(new Date(spot.getTime() + amount * 7 * DAY_MS));
			return nextBusinessDay(addMonths(spot, match[2] === 'M' ? amount : amount * 12));
		}
	}
}

// ---------------------------------------------------------------------------
// Prices
// ---------------------------------------------------------------------------

function decimalsFor(quote: string): number {
	return quote === 'JPY' || quote === 'HUF' || quote === 'ISK' ? 3 : 5;
}

const round = (value: number, decimals: number): number => Number(value.toFixed(decimals));

/** Mid rate: units of `quote` per 1 `base`. */
export function midRate(base: string, quote: string): number {
	return (EUR_RATES[quote] ?? 1) / (EUR_RATES[base] ?? 1);
}

export function priceTrade(
	base: string,
	quote: string,
	days: number,
	noise: number,
): { spotPrice: number; forwardPrice: number; allInPrice: number } {
	const spotPrice = round(midRate(base, quote) * (1 + noise), decimalsFor(quote));
	const differential = (INTEREST[quote] ?? 0.03) - (INTEREST[base] ?? 0.03);
	const forwardPrice = days > 2 ? round((spotPrice * differential * days) / 360, 7) : 0;
	const allInPrice = round(spotPrice + forwardPrice, 7);
	return { spotPrice, forwardPrice, allInPrice };
}

// ---------------------------------------------------------------------------
// Trade book
// ---------------------------------------------------------------------------

function tradeIdFor(prng: Prng, time: Date, index: number): string {
	const iso = time.toISOString();
	const datePart = iso.slice(2, 4) + iso.slice(5, 7) + iso.slice(8, 10);
	const series = String.fromCharCode(65 + (Math.floor(index / 10000) % 26));
	return `${prng.pick(['T', 'W', 'F'])}${datePart}${series}${String(index % 10000).padStart(4, '0')}`;
}

/** Newest first; ties broken by tradeId so that pages are exact. */
export function compareTrades(a: Trade, b: Trade): number {
	if (a.tradeTime !== b.tradeTime) return a.tradeTime < b.tradeTime ? 1 : -1;
	return a.tradeId < b.tradeId ? -1 : a.tradeId > b.tradeId ? 1 : 0;
}

export function generateTrades(seed: number, count: number, today: Date): Trade[] {
	const prng = new Prng(seed ^ 0x5eed7ade);
	const start =
		Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()) - 730 * DAY_MS;
	const trades: Trade[] = [];
	for (let index = 0; index < count; index++) {
		const time = new Date(start + Math.floor(prng.next() * 730 * DAY_MS));
		const counterpart = prng.pick(COUNTERPARTS);
		const product = prng.weighted(PRODUCTS);
		const [base, quote] = prng.pick(PAIRS);
		const tradeDate = new Date(
			Date.UTC(time.getUTCFullYear(), time.getUTCMonth(), time.getUTCDate()),
		);
		const spotDate = addBusinessDays(tradeDate, 2);
		const maturity =
			product === 'Spot'
				? spotDate
				: nextBusinessDay(new Date(spotDate.getTime() + prng.int(5, 540) * DAY_MS));
		const days = Math.round((maturity.getTime() - tradeDate.getTime()) / DAY_MS);
		const prices = priceTrade(base, quote, days, prng.range(-0.04, 0.04));
		const baseAmount = prng.int(1, 500) * 10000;
		const quoteAmount = round(baseAmount * prices.allInPrice, 2);
		const buysBase = prng.chance(0.5);
		const baseMoney: Money = { currency: base, amount: baseAmount };
		const quoteMoney: Money = { currency: quote, amount: quoteAmount };
		const commentRoll = prng.next();
		trades.push({
			tradeId: tradeIdFor(prng, time, index),
			tradeTime: time.toISOString(),
			product,
			counterpart: counterpart.id,
			counterpartName: counterpart.name,
			allInPrice: prices.allInPrice,
			spotPrice: prices.spotPrice,
			forwardPrice: prices.forwardPrice,
			maturityDate: isoDate(maturity),
			sold: buysBase ? quoteMoney : baseMoney,
			bought: buysBase ? baseMoney : quoteMoney,
			autoSettle: prng.chance(0.7),
			comment: commentRoll < 0.3 ? '' : commentRoll < 0.45 ? null : prng.pick(COMMENTS),
		});
	}
	return trades.sort(compareTrades);
}

export class TradeBook {
	private trades: Trade[] = [];
	private byId = new Map<string, Trade>();
	private executed: Trade[] = [];
	private generated = 0;
	/** Results of recent list queries, as a bank's index would serve them; cleared on every change. */
	private queries = new Map<string, Trade[]>();

	constructor(
		private readonly seed: number,
		count: number,
		private readonly now: () => Date,
	) {
		this.setCount(count);
	}

	setCount(count: number): void {
		if (!Number.isInteger(count) || count < 0)
			throw new Error('Trade count must be a non-negative integer');
		this.trades = generateTrades(this.seed, count, this.now());
		this.generated = count;
		this.executed = [];
		this.reindex();
	}

	private reindex(): void {
		this.byId = new Map(this.trades.map((trade) => [trade.tradeId, trade]));
		this.queries.clear();
	}

	all(): Trade[] {
		return this.trades.slice();
	}

	/**
	 * The trades a list query matches, computed once per query and book state, so that paging
	 * through a large result costs each page about the same, as with a real bank's index.
	 */
	matching(query: string, predicate: (trade: Trade) => boolean): Trade[] {
		let found = this.queries.get(query);
		if (!found) {
			found = this.trades.filter(predicate);
			if (this.queries.size >= 64) this.queries.clear();
			this.queries.set(query, found);
		}
		return found;
	}

	get(tradeId: string): Trade | undefined {
		return this.byId.get(tradeId);
	}

	/** Adds an executed trade to the book. */
	add(trade: Trade): void {
		this.executed.push(trade);
		this.trades.push(trade);
		this.trades.sort(compareTrades);
		this.byId.set(trade.tradeId, trade);
		this.queries.clear();
	}

	/** Removes executed trades, keeping the generated book. */
	resetExecuted(): void {
		if (this.executed.length === 0) return;
		const executed = new Set(this.executed);
		this.trades = this.trades.filter((trade) => !executed.has(trade));
		this.executed = [];
		this.reindex();
	}

	generatedCount(): number {
		return this.generated;
	}

	nextExecutionIndex(): number {
		return this.executed.length;
	}
}

// ---------------------------------------------------------------------------
// Report API (B)
// ---------------------------------------------------------------------------

export interface ReportDeps {
	book: TradeBook;
	switches: SandboxSwitches;
	/** Path of the report base from the host root, e.g. /v1/open-trades-service. */
	basePath: string;
	origin: string;
	foreignOrigin: string;
}

class ParameterError extends Error {}

function reportError(
	ctx: RequestContext,
	status: number,
	exception: string,
	message: string,
): void {
	sendJson(ctx, status, { error: { exception, message, timestamp: ctx.now().toISOString() } });
}

function single(params: Map<string, string[]>, name: string): string | undefined {
	const values = params.get(name.toLowerCase());
	if (!values || values.length === 0) return undefined;
	if (values.length > 1) throw new ParameterError(`The ${name} parameter must be given once.`);
	return values[0];
}

function integerParam(
	params: Map<string, string[]>,
	name: string,
	fallback: number,
	min: number,
	max: number,
): number {
	const raw = single(params, name);
	if (raw === undefined || raw === '') return fallback;
	if (!/^-?\d+$/.test(raw)) throw new ParameterError(`The ${name} parameter must be an integer.`);
	const value = Number(raw);
	if (value < min || value > max) {
		throw new ParameterError(
			max === Number.MAX_SAFE_INTEGER
				? `The ${name} parameter must be an integer >= ${min}.`
				: `The ${name} parameter must be an integer between ${min} and ${max}.`,
		);
	}
	return value;
}

function counterpartsParam(params: Map<string, string[]>): string[] {
	const values = params.get('counterparts') ?? [];
	return values
		.flatMap((value) => value.split(','))
		.map((value) => value.trim())
		.filter((value) => value.length > 0);
}

function dateParam(params: Map<string, string[]>, name: string, today: string): string | undefined {
	const raw = single(params, name);
	if (raw === undefined || raw === '') return undefined;
	if (!parseIsoDate(raw))
		throw new ParameterError(`The ${name} parameter must be a valid date in YYYY-MM-DD format.`);
	if (raw > today)
		throw new ParameterError(
			`${name === 'startDate' ? 'Start' : 'End'} date can not be future date.`,
		);
	return raw;
}

function buildLink(deps: ReportDeps, path: string, query: Array<[string, string]>): string {
	const search = query.map(([name, value]) => `${name}=${value}`).join('&');
	const relative = `${deps.basePath}${path}?${search}`;
	switch (deps.switches.linkStyle) {
		case 'absolute':
			return `${deps.origin}${relative}`;
		case 'foreign':
			return `${deps.foreignOrigin}${relative}`;
		default:
			return relative;
	}
}

/**
 * Answers one page of the trades `select` finds for the counterparts asked for (every one when
 * none is), with links to the next and previous pages that repeat the query's filters.
 */
function page(
	ctx: RequestContext,
	deps: ReportDeps,
	params: Map<string, string[]>,
	path: string,
	dateFilters: Array<[string, string]>,
	select: (wanted: Set<string>) => Trade[],
	emptyMessage: string,
): void {
	const counterparts = counterpartsParam(params);
	const offset = integerParam(params, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
	const limit = integerParam(params, 'limit', 30, 1, 100);
	const matches = select(new Set(counterparts));
	const filters: Array<[string, string]> =
		counterparts.length > 0
			? [...dateFilters, ['counterparts', counterparts.map(encodeURIComponent).join(',')]]
			: dateFilters;
	const items = matches.slice(offset, offset + limit);
	if (items.length === 0) {
		reportError(ctx, 404, 'NotFound', emptyMessage);
		return;
	}
	const next =
		offset + limit < matches.length
			? buildLink(deps, path, [
					...filters,
					['offset', String(offset + limit)],
					['limit', String(limit)],
				])
			: null;
	const previous =
		offset > 0
			? buildLink(deps, path, [
					...filters,
					['offset', String(Math.max(0, offset - limit))],
					['limit', String(limit)],
				])
			: null;
	sendJson(ctx, 200, { items, next, previous });
}

export function handleReport(ctx: RequestContext, deps: ReportDeps, subPath: string): void {
	if (ctx.req.method !== 'GET') {
		reportError(ctx, 405, 'MethodNotAllowed', 'Only GET is supported.');
		return;
	}
	const params = queryParams(ctx.url);
	const today = isoDate(ctx.now());
	try {
		if (subPath === '/trade-reports' || subPath === '/trade-reports/') {
			const startDate = dateParam(params, 'startDate', today);
			if (!startDate) throw new ParameterError('The startDate parameter is required.');
			const endDate = dateParam(params, 'endDate', today) ?? today;
			if (endDate < startDate)
				throw new ParameterError('The endDate parameter must not be before startDate.');
			const history = (wanted: Set<string>) =>
				deps.book.matching(`history|${startDate}|${endDate}|${[...wanted].join(',')}`, (trade) => {
					const day = trade.tradeTime.slice(0, 10);
					return (
						day >= startDate && day <= endDate && (wanted.size === 0 || wanted.has(trade.counterpart))
					);
				});
			const dates: Array<[string, string]> = [
				['startDate', startDate],
				['endDate', endDate],
			];
			page(ctx, deps, params, '/trade-reports', dates, history, 'No trades found for the given parameters.');
			return;
		}
		if (subPath === '/trade-reports/open' || subPath === '/trade-reports/open/') {
			const open = (wanted: Set<string>) =>
				deps.book.matching(
					`open|${today}|${[...wanted].join(',')}`,
					(trade) => trade.maturityDate >= today && (wanted.size === 0 || wanted.has(trade.counterpart)),
				);
			page(ctx, deps, params, '/trade-reports/open', [], open, 'No open trades found for the given parameters.');
			return;
		}
		const single = /^\/trade-reports\/trade\/([^/]*)\/?$/.exec(subPath);
		if (single) {
			const tradeId = decodeURIComponent(single[1]);
			if (tradeId.length !== 12) throw new ParameterError('Invalid tradeId format.');
			const trade = deps.book.get(tradeId);
			if (!trade) {
				reportError(ctx, 404, 'NotFound', 'Trade details not found for the given tradeId.');
				return;
			}
			sendJson(ctx, 200, trade);
			return;
		}
		reportError(ctx, 404, 'NotFound', 'No such resource.');
	} catch (error) {
		if (error instanceof ParameterError) {
			reportError(ctx, 400, 'InvalidParameterException', error.message);
			return;
		}
		throw error;
	}
}

// ---------------------------------------------------------------------------
// Execution API (C)
// ---------------------------------------------------------------------------

export interface ExecutionDeps {
	book: TradeBook;
	stats: SandboxStats;
}

function executionError(
	ctx: RequestContext,
	status: number,
	exception: string,
	message: string,
): void {
	sendJson(ctx, status, { timestamp: ctx.now().toISOString(), exception, message });
}

/** Validates an execution request; returns an error message or the normalised request. */
export function validateExecution(
	body: unknown,
	today: string,
):
	| { error: string }
	| {
			request: {
				counterpart: string;
				buyCurrency: string;
				sellCurrency: string;
				amount: number;
				amountSide: 'BUY' | 'SELL';
				baseSide: 'BUY' | 'SELL';
				maturityDate?: string;
				tenor?: string;
				comment?: string;
				shortName?: string;
			};
	  } {
	if (!isRecord(body)) return { error: 'Request body must be a JSON object.' };
	for (const field of [
		'counterpart',
		'buyCurrency',
		'sellCurrency',
		'amount',
		'amountSide',
		'baseSide',
	]) {
		if (body[field] === undefined || body[field] === null || body[field] === '') {
			return { error: `Field '${field}' is required.` };
		}
	}
	const {
		counterpart,
		buyCurrency,
		sellCurrency,
		amount,
		amountSide,
		baseSide,
		maturityDate,
		tenor,
		comment,
		shortName,
	} = body;
	if (
		typeof counterpart !== 'string' ||
		counterpart.trim().length === 0 ||
		counterpart.length > 35
	) {
		return { error: "Field 'counterpart' must be a non-empty string of at most 35 characters." };
	}
	for (const [name, value] of [
		['buyCurrency', buyCurrency],
		['sellCurrency', sellCurrency],
	] as const) {
		if (typeof value !== 'string' || !/^[A-Z]{3}$/.test(value) || !CURRENCIES.has(value)) {
			return { error: `The provided currency code is not valid: '${name}'.` };
		}
	}
	if (buyCurrency === sellCurrency) return { error: 'buyCurrency and sellCurrency must differ.' };
	if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0) {
		return { error: "Field 'amount' must be a positive number." };
	}
	if (amountSide !== 'BUY' && amountSide !== 'SELL')
		return { error: "Field 'amountSide' must be BUY or SELL." };
	if (baseSide !== 'BUY' && baseSide !== 'SELL')
		return { error: "Field 'baseSide' must be BUY or SELL." };
	if (comment !== undefined && comment !== null && typeof comment !== 'string') {
		return { error: "Field 'comment' must be a string." };
	}
	if (shortName !== undefined && shortName !== null && typeof shortName !== 'string') {
		return { error: "Field 'shortName' must be a string." };
	}
	let maturity: string | undefined;
	let usedTenor: string | undefined;
	if (maturityDate !== undefined && maturityDate !== null && maturityDate !== '') {
		if (typeof maturityDate !== 'string' || !parseIsoDate(maturityDate)) {
			return { error: "Field 'maturityDate' must be a valid date in YYYY-MM-DD format." };
		}
		if (maturityDate < today) return { error: 'maturityDate can not be in the past.' };
		maturity = maturityDate;
	} else if (tenor !== undefined && tenor !== null && tenor !== '') {
		if (typeof tenor !== 'string' || !(TENORS as readonly string[]).includes(tenor)) {
			return { error: `Field 'tenor' must be one of ${TENORS.join(', ')}.` };
		}
		usedTenor = tenor;
	} else {
		return { error: "Either 'maturityDate' or 'tenor' is required." };
	}
	return {
		request: {
			counterpart,
			buyCurrency: buyCurrency as string,
			sellCurrency: sellCurrency as string,
			amount,
			amountSide,
			baseSide,
			maturityDate: maturity,
			tenor: usedTenor,
			comment: typeof comment === 'string' ? comment : undefined,
			shortName: typeof shortName === 'string' ? shortName : undefined,
		},
	};
}

export async function handleExecution(ctx: RequestContext, deps: ExecutionDeps): Promise<void> {
	if (ctx.req.method !== 'POST') {
		executionError(ctx, 405, 'MethodNotAllowed', 'Only POST is supported.');
		return;
	}
	const raw = await readBody(ctx.req, 256 * 1024);
	let body: unknown;
	try {
		body = JSON.parse(raw.toString('utf8'));
	} catch {
		executionError(ctx, 400, 'HttpMessageNotReadableException', 'Request body is not valid JSON.');
		return;
	}
	const now = ctx.now();
	const validated = validateExecution(body, isoDate(now));
	if ('error' in validated) {
		executionError(ctx, 400, 'InvalidParameterException', validated.error);
		return;
	}
	const request = validated.request;
	const maturity = request.maturityDate ?? isoDate(tenorToDate(request.tenor ?? 'SP', now));
	const tradeDate = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
	const days = Math.round((parseIsoDate(maturity)!.getTime() - tradeDate.getTime()) / DAY_MS);
	// baseSide names the side whose currency is the base of the quoted price.
	const base = request.baseSide === 'BUY' ? request.buyCurrency : request.sellCurrency;
	const quote = request.baseSide === 'BUY' ? request.sellCurrency : request.buyCurrency;
	const prices = priceTrade(base, quote, days, 0.0004);
	const amountCurrency = request.amountSide === 'BUY' ? request.buyCurrency : request.sellCurrency;
	const otherCurrency = request.amountSide === 'BUY' ? request.sellCurrency : request.buyCurrency;
	const otherAmount =
		amountCurrency === base
			? request.amount * prices.allInPrice
			: request.amount / prices.allInPrice;
	const given: Money = { currency: amountCurrency, amount: request.amount };
	const computed: Money = { currency: otherCurrency, amount: round(otherAmount, 2) };
	const index = deps.book.nextExecutionIndex();
	const iso = now.toISOString();
	const tradeId = `X${iso.slice(2, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${String.fromCharCode(65 + (Math.floor(index / 10000) % 26))}${String(index % 10000).padStart(4, '0')}`;
	const spotDate = isoDate(addBusinessDays(tradeDate, 2));
	const product = maturity <= spotDate ? 'Spot' : 'FX Forward';
	const counterpart = COUNTERPARTS.find((entry) => entry.id === request.counterpart);
	const result: ExecutionResult = {
		tradeId,
		executionId: `EXEC${randomBytes(12).toString('hex').toUpperCase()}`,
		counterpart: request.counterpart,
		bought: request.amountSide === 'BUY' ? given : computed,
		sold: request.amountSide === 'BUY' ? computed : given,
		maturityDate: maturity,
		product,
		tradeTime: iso,
		spotPrice: prices.spotPrice,
		forwardPrice: prices.forwardPrice,
		allInPrice: prices.allInPrice,
		autoSettle: true,
		comment: request.comment ?? '',
	};
	deps.stats.executions += 1;
	deps.stats.executionBodies.push(body);
	deps.book.add({
		tradeId: result.tradeId,
		tradeTime: result.tradeTime,
		product: result.product,
		counterpart: result.counterpart,
		counterpartName: counterpart?.name ?? request.shortName ?? result.counterpart,
		allInPrice: result.allInPrice,
		spotPrice: result.spotPrice,
		forwardPrice: result.forwardPrice,
		maturityDate: result.maturityDate,
		sold: result.sold,
		bought: result.bought,
		autoSettle: result.autoSettle,
		comment: result.comment,
	});
	sendJson(ctx, 200, result);
}
