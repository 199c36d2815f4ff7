/**
 * The BTF service of a download or an upload as the editor shows it: a preset named as treasurers
 * know it (End-of-Day Statement (camt.053), SEPA Credit Transfer (pain.001), ...) with the bank's
 * scope and message version, or every BTF parameter typed (ServiceName, Scope, ServiceOption,
 * MsgName with version, variant and format, Container). The values are checked by the EBICS
 * library's checkService before anything is sent.
 */
import type { IDisplayOptions, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { BtfService } from '../index';
import { btfRule, SERVICE_PRESETS, USUAL_BTF_VALUES } from '../index';
import { InputError } from '../../common/errors';
import { trimmedPattern, unlessValid } from '../../common/properties';
import { orderTypeOption } from './orderTypes';

export type Direction = 'download' | 'upload';

/** Presets of each direction, in the order the editor lists them. */
export const PRESET_ORDER: Record<Direction, string[]> = {
	download: ['camt053', 'camt052', 'camt054', 'pain002', 'mt940', 'mt942'],
	upload: ['sct', 'sctInstant', 'sddCore', 'sddB2b', 'xct'],
};

/** The Customer Acknowledgement (HAC) is an administrative download, offered beside the BTF ones. */
export const HAC_PRESET = 'hac';
export const CUSTOM = 'custom';

/** A preset's BTF parameters as the editor describes it. */
export function describeService(service: Omit<BtfService, 'scope'>): string {
	return [
		`ServiceName ${service.serviceName}`,
		service.serviceOption && `ServiceOption ${service.serviceOption}`,
		`MsgName ${service.msgName}`,
		service.container && `Container ${service.container}`,
	]
		.filter(Boolean)
		.join(', ');
}

function withOperation(operation: string, show: IDisplayOptions['show'] = {}): IDisplayOptions {
	return { show: { operation: [operation], ...show } };
}

/** A maker of optional or required text fields shown with these display options (always, without). */
export function textFields(
	displayOptions?: IDisplayOptions,
): (
	displayName: string,
	name: string,
	description: string,
	placeholder: string,
	required?: boolean,
) => INodeProperties {
	const shown = displayOptions ? { displayOptions } : {};
	return (displayName, name, description, placeholder, required = false) => ({
		displayName,
		name,
		type: 'string',
		default: '',
		required,
		placeholder,
		description,
		...shown,
	});
}

/** The typed fields and the BTF parameter each holds (its name in BTF, for the notices). */
const TYPED_PARAMETERS: Record<string, [keyof BtfService, string]> = {
	serviceName: ['serviceName', 'ServiceName'],
	customScope: ['scope', 'Scope'],
	serviceOption: ['serviceOption', 'ServiceOption'],
	msgName: ['msgName', 'MsgName'],
	customMsgVersion: ['msgVersion', 'MsgName version'],
	msgVariant: ['msgVariant', 'MsgName variant'],
	msgFormat: ['msgFormat', 'MsgName format'],
};

/**
 * A notice under a typed BTF parameter, shown while the field holds what checkService refuses
 * (its own rule): the node refuses it when it runs, this says so as typed.
 */
export function btfNotice(
	field: string,
	displayName: string,
	parameter: keyof BtfService,
	btfName: string,
	show?: IDisplayOptions['show'],
): INodeProperties {
	const { pattern, rule } = btfRule(parameter);
	return {
		displayName: `${displayName}: not a BTF ${btfName}. It must be ${rule}. The node refuses anything else before it sends a request.`,
		name: `${field}Notice`,
		type: 'notice',
		default: '',
		displayOptions: {
			...unlessValid(field, trimmedPattern(pattern), USUAL_BTF_VALUES[parameter]),
			...(show ? { show } : {}),
		},
	};
}

/**
 * The fields of a service typed with its BTF parameters (ServiceName, Scope, ServiceOption,
 * MsgName with version, variant and format, Container), named as `typedService` reads them; a
 * notice under each typed one while it breaks its BTF rule.
 */
export function typedServiceFields(displayOptions?: IDisplayOptions): INodeProperties[] {
	const shown = displayOptions ? { displayOptions } : {};
	const text = textFields(displayOptions);
	const checked = (field: INodeProperties): INodeProperties[] => {
		const [parameter, btfName] = TYPED_PARAMETERS[field.name];
		return [
			field,
			btfNotice(field.name, field.displayName, parameter, btfName, displayOptions?.show),
		];
	};
	return [
		...checked(
			text('Service Name', 'serviceName', 'BTF ServiceName: three letters or digits', 'EOP', true),
		),
		...checked(
			text(
				'Scope',
				'customScope',
				'BTF Scope: a country code (DE, CH, FR, ...) or an issuer code; empty for the global definition',
				'DE',
			),
		),
		...checked(
			text('Service Option', 'serviceOption', 'BTF ServiceOption, e.g. COR, B2B, URG', 'COR'),
		),
		...checked(
			text(
				'Message Name',
				'msgName',
				'BTF MsgName, e.g. camt.053, pain.001, mt940',
				'camt.053',
				true,
			),
		),
		...checked(
			text('Message Version', 'customMsgVersion', 'MsgName version, two or three digits', '08'),
		),
		...checked(text('Message Variant', 'msgVariant', 'MsgName variant, two or three digits', '')),
		...checked(
			text('Message Format', 'msgFormat', 'MsgName format, up to four letters or digits', ''),
		),
		{
			displayName: 'Container',
			name: 'container',
			type: 'options',
			default: '',
			options: [
				{ name: 'None', value: '' },
				{ name: 'SVC', value: 'SVC' },
				{ name: 'XML', value: 'XML' },
				{ name: 'ZIP', value: 'ZIP' },
			],
			description: 'BTF Container: ZIP for downloads of many files',
			...shown,
		},
	];
}

/**
 * A service from the values of `typedServiceFields` (`value` gives each field's trimmed text);
 * `fromFile` gives the message version an upload's file declares. Not checked here.
 */
export function typedService(
	value: (name: string) => string,
	fromFile?: { msgVersion?: string },
): BtfService {
	const container = value('container');
	return {
		serviceName: value('serviceName'),
		scope: value('customScope') || undefined,
		serviceOption: value('serviceOption') || undefined,
		msgName: value('msgName'),
		msgVersion: value('customMsgVersion') || fromFile?.msgVersion,
		msgVariant: value('msgVariant') || undefined,
		msgFormat: value('msgFormat') || undefined,
		container: (container || undefined) as BtfService['container'],
	};
}

/** The Service field and the fields of a typed service, for the download or upload operation. */
export function serviceProperties(direction: Direction, operation: string): INodeProperties[] {
	const field = `${direction}Service`;
	const custom = withOperation(operation, { [field]: [CUSTOM] });
	const preset = withOperation(operation, { [field]: PRESET_ORDER[direction] });
	const first = PRESET_ORDER[direction][0];
	return [
		{
			displayName: 'Service',
			name: field,
			type: 'options',
			noDataExpression: true,
			default: first,
			displayOptions: withOperation(operation),
			options: [
				...PRESET_ORDER[direction].map((key) => ({
					name: SERVICE_PRESETS[key].label,
					value: key,
					description: describeService(SERVICE_PRESETS[key].service),
				})),
				...(direction === 'download'
					? [
							{
								name: 'Customer Acknowledgement (HAC)',
								value: HAC_PRESET,
								description:
									'What the bank did with each order (pain.002): the customer protocol as a file',
							},
						]
					: []),
				orderTypeOption(direction),
				{
					name: 'Other Service (Type Its BTF Parameters)',
					value: CUSTOM,
					description: 'Any service the bank offers: type ServiceName, MsgName and the rest',
				},
			],
		},
		...typedServiceFields(custom),
		{
			displayName: 'Scope',
			name: 'scope',
			type: 'string',
			default: '',
			placeholder: 'DE',
			description:
				'BTF Scope the bank uses for this service: a country code (DE for German banks under the DK rules, CH, FR, ...) or empty for the global definition. The bank lists its services with Get Subscriber Permissions (HTD).',
			displayOptions: preset,
		},
		scopeNotice('scope', preset.show),
		{
			displayName: 'Message Version',
			name: 'msgVersion',
			type: 'string',
			default: '',
			placeholder: direction === 'upload' ? 'From the file' : '08',
			description:
				direction === 'upload'
					? 'MsgName version, e.g. 09 for pain.001.001.09. Empty: taken from the file (its namespace).'
					: 'MsgName version, e.g. 08 for camt.053.001.08. Empty: whatever version the bank delivers.',
			displayOptions: preset,
		},
		btfNotice('msgVersion', 'Message Version', 'msgVersion', 'MsgName version', preset.show),
	];
}

/**
 * A notice under a BTF Scope field, shown while the field holds what BTF does not take as a Scope
 * (lower case, a space inside, too long): the node refuses it when it runs, this says so as typed.
 */
export function scopeNotice(field: string, show?: IDisplayOptions['show']): INodeProperties {
	return {
		displayName:
			'Scope: not a BTF Scope. Write two or three upper-case letters or digits, such as DE, or leave it empty for the global definition. The node refuses anything else before it sends a request.',
		name: `${field}Notice`,
		type: 'notice',
		default: '',
		displayOptions: {
			// The scopes of the EBICS countries pass without n8n's regular expression engine.
			...unlessValid(field, trimmedPattern(btfRule('scope').pattern), USUAL_BTF_VALUES.scope),
			...(show ? { show } : {}),
		},
	};
}

/** A text parameter, trimmed (a number as its text). */
export function param(ctx: IExecuteFunctions, name: string, itemIndex: number): string {
	const value = ctx.getNodeParameter(name, itemIndex, '') as unknown;
	return typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
}

/** The chosen preset key (or CUSTOM, or HAC_PRESET). */
export function chosenService(
	ctx: IExecuteFunctions,
	direction: Direction,
	itemIndex: number,
): string {
	return param(ctx, `${direction}Service`, itemIndex);
}

/**
 * The BTF service from the parameters; `fromFile` gives the message version the file declares
 * (uploads). Not checked here: the EBICS library checks it before anything is sent.
 */
export function readService(
	ctx: IExecuteFunctions,
	direction: Direction,
	itemIndex: number,
	fromFile?: { msgVersion?: string },
): BtfService {
	const chosen = chosenService(ctx, direction, itemIndex);
	if (chosen === CUSTOM) return typedService((name) => param(ctx, name, itemIndex), fromFile);
	const preset = SERVICE_PRESETS[chosen];
	if (!preset || preset.direction !== direction)
		throw new InputError(`Service: "${chosen}" is not one of the ${direction} services`, {
			itemIndex,
		});
	return {
		...preset.service,
		scope: param(ctx, 'scope', itemIndex) || undefined,
		msgVersion: param(ctx, 'msgVersion', itemIndex) || fromFile?.msgVersion,
	};
}
