/**
 * EBICS 2.5 (H004) order types in the Download and Upload operations. With a credential whose
 * EBICS Version is H004, each BTF preset is sent as the EBICS 2.5 order type that stands for it
 * (End-of-day statement camt.053 as C53, SEPA credit transfer as CCT, ...); the Service choice
 * "EBICS 2.5 Order Type" offers the order types themselves (C52/C53/C54, Z52/Z53/Z54, STA, VMK,
 * FDL with a file format, HAC, PTK, HPD; CCT, CDD, CDB, FUL with a file format) or any order type
 * the bank's contract names. An EBICS 3.0 credential refuses that choice, and an H004 one a preset
 * without an EBICS 2.5 order type, each by name before anything is sent.
 */
import type { IDisplayOptions, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	orderTypeLabel,
	H004_ORDER_TYPES,
	H004_PRESET_ORDER_TYPES,
	h004OrderTypes,
	ORDER_TYPE_PATTERN,
	ORDER_TYPE_RULE,
	SERVICE_PRESETS,
	type DateRange,
	type H004OrderType,
	type OrderParams,
	type SignatureFlag,
} from '../index';
import { InputError } from '../../common/errors';
import { trimmedPattern, unlessValid } from '../../common/properties';

/** Download or upload (services.ts names it the same way). */
type Direction = H004OrderType['direction'];

/** The Service choice that takes an EBICS 2.5 order type. */
export const ORDER_TYPE_CHOICE = 'orderType';
const OTHER = 'other';

/**
 * Order types banks' contracts name beyond the node's list (camt and SEPA variants, the German
 * banks' Z-types, the Swiss ones), each within the rule: the notice lets them by without a pattern.
 */
const USUAL_ORDER_TYPES = [
	...new Set([
		...Object.values(H004_ORDER_TYPES).map((entry) => entry.orderType),
		'CRZ',
		'CIP',
		'C5N',
		'CCC',
		'CCU',
		'CDC',
		'CDZ',
		'C1C',
		'C2C',
		'XE2',
		'XE3',
		'Z01',
		'Z52',
		'Z53',
		'Z54',
		'FDL',
		'FUL',
	]),
];

/** The Service option of the EBICS 2.5 order types. */
export function orderTypeOption(direction: Direction): {
	name: string;
	value: string;
	description: string;
} {
	return {
		name: 'EBICS 2.5 Order Type (H004 Credentials)',
		value: ORDER_TYPE_CHOICE,
		description:
			direction === 'download'
				? 'C53, STA, FDL, ... for banks that offer only EBICS 2.5'
				: 'CCT, CDD, FUL, ... for banks that offer only EBICS 2.5',
	};
}

/** The fields of the EBICS 2.5 order type choice. */
export function orderTypeProperties(direction: Direction, operation: string): INodeProperties[] {
	const field = `${direction}Service`;
	const show = (extra: IDisplayOptions['show'] = {}): IDisplayOptions => ({
		show: { operation: [operation], [field]: [ORDER_TYPE_CHOICE], ...extra },
	});
	const typeField = `${direction}OrderType`;
	const fileType = direction === 'download' ? 'FDL' : 'FUL';
	const first = h004OrderTypes(direction)[0].orderType;
	return [
		{
			displayName: 'Order Type',
			name: typeField,
			type: 'options',
			noDataExpression: true,
			default: first,
			options: [
				...h004OrderTypes(direction).map((entry) => ({
					name: entry.label,
					value: entry.orderType,
				})),
				{ name: 'Other Order Type (Type It)', value: OTHER },
			],
			description: 'The EBICS 2.5 order type, as the bank contract lists it',
			displayOptions: show(),
		},
		{
			displayName: 'Other Order Type',
			name: `${direction}OtherOrderType`,
			type: 'string',
			default: '',
			required: true,
			placeholder: direction === 'download' ? 'CRZ' : 'CIP',
			description: 'Three upper-case letters or digits, as the bank contract names the order type',
			displayOptions: show({ [typeField]: [OTHER] }),
		},
		{
			displayName: `Other Order Type: not an order type. It must be ${ORDER_TYPE_RULE}, as the bank contract names it (such as CRZ). The node refuses anything else before it sends a request.`,
			name: `${direction}OtherOrderTypeNotice`,
			type: 'notice',
			default: '',
			displayOptions: {
				...unlessValid(
					`${direction}OtherOrderType`,
					trimmedPattern(ORDER_TYPE_PATTERN),
					USUAL_ORDER_TYPES,
				),
				...show({ [typeField]: [OTHER] }),
			},
		},
		{
			displayName: 'File Format',
			name: `${direction}FileFormat`,
			type: 'string',
			default: '',
			required: true,
			placeholder: direction === 'download' ? 'camt.xxx.cfonb120.stm' : 'pain.001.001.03.sct',
			description: `The file format the bank names for ${fileType} (its FileFormat parameter)`,
			displayOptions: show({ [typeField]: [fileType] }),
		},
		{
			displayName: 'Country Code',
			name: `${direction}CountryCode`,
			type: 'string',
			default: '',
			placeholder: 'FR',
			description: `Only when the bank's ${fileType} file format needs a country: two upper-case letters`,
			displayOptions: show({ [typeField]: [fileType] }),
		},
	];
}

function text(ctx: IExecuteFunctions, name: string, itemIndex: number): string {
	const value = ctx.getNodeParameter(name, itemIndex, '') as unknown;
	return typeof value === 'string' ? value.trim() : '';
}

/** What an H004 order is sent as. */
export interface H004Order {
	orderType: string;
	params: OrderParams & { kind: 'standard' | 'file' };
	/** How items name the order, e.g. "C53 (End-of-day statement camt.053 (C53))". */
	label: string;
	/** The upload preset whose payment file checks apply (CUSTOM-like when none). */
	checkAs?: string;
}

const CHECK_AS: Record<string, string> = { CCT: 'sct', CDD: 'sddCore', CDB: 'sddB2b' };

/**
 * The EBICS 2.5 order of the parameters for an H004 credential: the preset's order type, or the
 * typed one. InputError naming the Service field when a preset has no EBICS 2.5 order type.
 */
export function h004Order(
	ctx: IExecuteFunctions,
	direction: Direction,
	chosen: string,
	itemIndex: number,
	options: { dateRange?: DateRange; signatureFlag?: SignatureFlag } = {},
): H004Order {
	let orderType: string;
	if (chosen === ORDER_TYPE_CHOICE) {
		const picked = text(ctx, `${direction}OrderType`, itemIndex);
		orderType = picked === OTHER ? text(ctx, `${direction}OtherOrderType`, itemIndex) : picked;
		if (picked === OTHER && !ORDER_TYPE_PATTERN.test(orderType))
			throw new InputError(
				`Other Order Type: "${orderType}" is not valid: it must be ${ORDER_TYPE_RULE}, as the bank contract names the order type (e.g. CRZ). Nothing was sent to the bank`,
				{ itemIndex },
			);
	} else if (H004_PRESET_ORDER_TYPES[chosen]) {
		orderType = H004_PRESET_ORDER_TYPES[chosen];
	} else {
		const what = SERVICE_PRESETS[chosen]?.label ?? 'A typed BTF service';
		throw new InputError(
			`Service: ${what} has no EBICS 2.5 order type common to all banks, and the credential's EBICS Version is H004 (EBICS 2.5). Choose "EBICS 2.5 Order Type" and the order type the bank contract names (e.g. CRZ or Z01 for pain.002 status reports). Nothing was sent to the bank`,
			{ itemIndex },
		);
	}
	const fileType = direction === 'download' ? 'FDL' : 'FUL';
	const upload = direction === 'upload';
	const params: H004Order['params'] =
		orderType === fileType
			? {
					kind: 'file',
					fileFormat: text(ctx, `${direction}FileFormat`, itemIndex),
					countryCode: text(ctx, `${direction}CountryCode`, itemIndex) || undefined,
					...(upload ? { signatureFlag: options.signatureFlag } : { dateRange: options.dateRange }),
				}
			: {
					kind: 'standard',
					...(upload ? { signatureFlag: options.signatureFlag } : { dateRange: options.dateRange }),
				};
	return {
		orderType,
		params,
		label: orderTypeLabel(orderType, params.kind === 'file' ? params.fileFormat : undefined),
		checkAs: CHECK_AS[orderType] ?? (SERVICE_PRESETS[chosen] ? chosen : undefined),
	};
}

/** InputError when an EBICS 3.0 credential meets the EBICS 2.5 order type choice. */
export function refuseOrderTypeChoice(chosen: string, itemIndex: number): void {
	if (chosen === ORDER_TYPE_CHOICE)
		throw new InputError(
			'Service: EBICS 2.5 order types need a credential whose EBICS Version is H004 (EBICS 2.5); this credential speaks EBICS 3.0 (H005), which takes BTF services: choose a service preset or type its BTF parameters. Nothing was sent to the bank',
			{ itemIndex },
		);
}
