import type { ILoadOptionsFunctions, INodeListSearchResult, INodeProperties } from 'n8n-workflow';

import { unlessValid } from '../common/properties';
import { ISO_4217 } from './validation';

const names = new Intl.DisplayNames(['en'], { type: 'currency' });

/** Every ISO 4217 code with its English name, most traded first, then alphabetically. */
const MOST_TRADED = [
	'EUR',
	'USD',
	'GBP',
	'SEK',
	'NOK',
	'DKK',
	'CHF',
	'JPY',
	'PLN',
	'CAD',
	'AUD',
	'CNY',
];
const CURRENCIES = [
	...MOST_TRADED,
	...[...ISO_4217].filter((c) => !MOST_TRADED.includes(c)).sort(),
].map((code) => ({ code, name: names.of(code) ?? code }));

/** The ISO 4217 list, searched by code or name (what the user typed, in any case). */
export async function searchCurrencies(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const wanted = (filter ?? '').trim().toLowerCase();
	const results = CURRENCIES.filter(
		(c) =>
			!wanted || c.code.toLowerCase().includes(wanted) || c.name.toLowerCase().includes(wanted),
	).map((c) => ({ name: `${c.code}: ${c.name}`, value: c.code }));
	return { results };
}

/** The codes as picked from the list or typed plainly, upper or lower case. */
const USUAL_CODES = [...ISO_4217].flatMap((code) => [code, code.toLowerCase()]);

/** Any ISO 4217 code, in any case, with spaces around it (what `FxValidator.currency` takes). */
const ISO_CODE_PATTERN = `^\\s*(?:${[...ISO_4217]
	.map((code) => [...code].map((c) => `[${c}${c.toLowerCase()}]`).join(''))
	.join('|')})\\s*$`;

/**
 * A currency field: the ISO 4217 list with search, or a code typed by hand; and below it a
 * notice shown while the code typed is not an ISO 4217 code. The notice marks the field without
 * stopping the run (as a field issue would), so that running the node reports this field together
 * with every other one to fix.
 */
export function currencyProperty(field: {
	displayName: string;
	name: string;
	description: string;
}): INodeProperties[] {
	return [
		{
			...field,
			type: 'resourceLocator',
			required: true,
			default: { mode: 'list', value: '' },
			modes: [
				{
					displayName: 'From List',
					name: 'list',
					type: 'list',
					placeholder: 'Select or search a currency…',
					typeOptions: { searchListMethod: 'searchCurrencies', searchable: true },
				},
				{
					displayName: 'Code',
					name: 'code',
					type: 'string',
					placeholder: 'e.g. EUR',
				},
			],
		},
		{
			displayName: `${field.displayName}: not an ISO 4217 currency code (three letters, such as EUR). Running the node stops before anything is sent and names every field to fix; pick the currency from the list to be sure.`,
			name: `${field.name}Notice`,
			type: 'notice',
			default: '',
			displayOptions: unlessValid(field.name, ISO_CODE_PATTERN, USUAL_CODES),
		},
	];
}
