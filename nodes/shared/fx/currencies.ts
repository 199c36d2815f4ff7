import type { ILoadOptionsFunctions, INodeListSearchResult, INodeProperties } from 'n8n-workflow';

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

/** A currency field: the ISO 4217 list with search, or a code typed by hand. */
export function currencyProperty(field: {
	displayName: string;
	name: string;
	description: string;
	displayOptions?: INodeProperties['displayOptions'];
}): INodeProperties {
	return {
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
				validation: [
					{
						type: 'regex',
						properties: {
							regex: '^\\s*[A-Za-z]{3}\\s*$',
							errorMessage: 'A currency code has three letters, such as EUR',
						},
					},
				],
			},
		],
	};
}
