/**
 * BTF (Business Transaction Formats) service parameters of EBICS 3.0: which business service an
 * upload (BTU) or download (BTD) is. Rules from ebics_types_H005.xsd / ebics_orders_H005.xsd:
 * ServiceName 3 upper-case letters or digits, Scope 2-3 (a country code or an issuer code),
 * ServiceOption 3-10, MsgName 1-10 of a-z 0-9 '.', version and variant 2-3 digits, format up to 4,
 * Container XML, ZIP or SVC.
 */
import { EbicsValidationError } from './errors';
import { el, empty, leaf } from './xml';

export interface BtfService {
	serviceName: string;
	/** Country code (DE, CH, FR, ...) or issuer code; absent: the global definition. */
	scope?: string;
	serviceOption?: string;
	/** Container the data comes in or goes in: ZIP (downloads of many files), XML or SVC. */
	container?: 'XML' | 'ZIP' | 'SVC';
	msgName: string;
	msgVersion?: string;
	msgVariant?: string;
	msgFormat?: string;
}

/** A BTF parameter's rule: its pattern (anchored), what it must be in words, whether required. */
export interface BtfRule {
	pattern: RegExp;
	rule: string;
	required: boolean;
}

const RULES: Array<[keyof BtfService, RegExp, string, boolean]> = [
	['serviceName', /^[A-Z0-9]{3}$/, 'three upper-case letters or digits (e.g. EOP, SCT)', true],
	[
		'scope',
		/^[A-Z0-9]{2,3}$/,
		'two or three upper-case letters or digits (a country code such as DE, or an issuer code)',
		false,
	],
	[
		'serviceOption',
		/^[A-Z0-9]{3,10}$/,
		'three to ten upper-case letters or digits (e.g. COR, B2B)',
		false,
	],
	['container', /^(XML|ZIP|SVC)$/, 'XML, ZIP or SVC', false],
	[
		'msgName',
		/^[a-z0-9.]{1,10}$/,
		'one to ten lower-case letters, digits or dots (e.g. camt.053, pain.001, mt940)',
		true,
	],
	['msgVersion', /^[0-9]{2,3}$/, 'two or three digits (e.g. 08)', false],
	['msgVariant', /^[0-9]{2,3}$/, 'two or three digits', false],
	['msgFormat', /^[A-Z0-9]{1,4}$/, 'up to four upper-case letters or digits (e.g. XML)', false],
];

/**
 * Values of each BTF parameter that banks' BTF code lists and contracts use most, every one within
 * its rule: the editor's notices let them by without a pattern (see unlessValid).
 */
export const USUAL_BTF_VALUES: Partial<Record<keyof BtfService, string[]>> = {
	serviceName: ['EOP', 'STM', 'REP', 'PSR', 'SCT', 'SCI', 'SDD', 'XCT', 'DCT', 'MCT'],
	scope: ['DE', 'AT', 'CH', 'FR', 'BIL', 'GLB'],
	serviceOption: ['COR', 'B2B', 'COR1', 'URG', 'XSTM', 'XREP'],
	container: ['XML', 'ZIP', 'SVC'],
	msgName: [
		'camt.052',
		'camt.053',
		'camt.054',
		'camt.086',
		'pain.001',
		'pain.002',
		'pain.008',
		'pain.014',
		'mt940',
		'mt942',
	],
	msgVersion: ['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '12', '13'],
	msgVariant: ['001', '002', '003'],
	msgFormat: ['XML', 'PDF', 'TXT', 'ZIP'],
};

/** The rule of one BTF parameter, as checkService applies it (the editor's notices show it). */
export function btfRule(name: keyof BtfService): BtfRule {
	const [, pattern, rule, required] = RULES.find(([field]) => field === name)!;
	return { pattern, rule, required };
}

/**
 * Checks the service parameters against the schema's rules; returns them trimmed, empty optional
 * values dropped. EbicsValidationError names the field ("service.msgName") and the rule.
 */
export function checkService(service: BtfService, field = 'service'): BtfService {
	if (!service || typeof service !== 'object')
		throw new EbicsValidationError(field, `${field} is required: ServiceName and MsgName at least`);
	const out: Record<string, string> = {};
	for (const [name, pattern, rule, required] of RULES) {
		const value =
			service[name] === undefined || service[name] === null ? '' : String(service[name]).trim();
		if (!value) {
			if (required)
				throw new EbicsValidationError(`${field}.${name}`, `${field}.${name} is required: ${rule}`);
			continue;
		}
		if (!pattern.test(value))
			throw new EbicsValidationError(
				`${field}.${name}`,
				`${field}.${name} "${value}" is not valid: it must be ${rule}`,
			);
		out[name] = value;
	}
	return out as unknown as BtfService;
}

/** The Service element of BTD/BTU order parameters (element order of RestrictedServiceType). */
export function serviceXml(service: BtfService): string {
	return el(
		'Service',
		{},
		leaf('ServiceName', service.serviceName),
		service.scope && leaf('Scope', service.scope),
		service.serviceOption && leaf('ServiceOption', service.serviceOption),
		service.container && empty('Container', { containerType: service.container }),
		leaf('MsgName', service.msgName, {
			version: service.msgVersion,
			variant: service.msgVariant,
			format: service.msgFormat,
		}),
	);
}

/** A short label of a service for messages: "EOP DE camt.053.08 ZIP". */
export function serviceLabel(service: BtfService): string {
	return [
		service.serviceName,
		service.scope,
		service.serviceOption,
		`${service.msgName}${service.msgVersion ? `.${service.msgVersion}` : ''}${service.msgVariant ? `.${service.msgVariant}` : ''}`,
		service.container,
	]
		.filter(Boolean)
		.join(' ');
}

export interface ServicePreset {
	/** What users call it. */
	label: string;
	direction: 'download' | 'upload';
	service: Omit<BtfService, 'scope'>;
}

/**
 * Services as users know them. The scope is the bank's (DE for German banks under the DK rules,
 * CH for Swiss banks, FR for French ones, none for the global definition) and is added by the
 * caller; versions differ by bank and are left to the caller. Sources: the EBICS BTF code lists
 * (ServiceName EOP/STM/REP/PSR/SCT/SCI/SDD/XCT), libeufin's PostFinance and GLS dialects
 * (EbicsOrder.kt: EOP camt.053 ZIP, STM camt.052 ZIP, REP camt.054 ZIP, PSR pain.002 ZIP, SCT/MCT
 * pain.001).
 */
export const SERVICE_PRESETS: Record<string, ServicePreset> = {
	camt053: {
		label: 'End-of-day statement (camt.053)',
		direction: 'download',
		service: { serviceName: 'EOP', msgName: 'camt.053', container: 'ZIP' },
	},
	camt052: {
		label: 'Intraday report (camt.052)',
		direction: 'download',
		service: { serviceName: 'STM', msgName: 'camt.052', container: 'ZIP' },
	},
	camt054: {
		label: 'Debit and credit notifications (camt.054)',
		direction: 'download',
		service: { serviceName: 'REP', msgName: 'camt.054', container: 'ZIP' },
	},
	pain002: {
		label: 'Payment status report (pain.002)',
		direction: 'download',
		service: { serviceName: 'PSR', msgName: 'pain.002', container: 'ZIP' },
	},
	mt940: {
		label: 'End-of-day statement (MT940)',
		direction: 'download',
		service: { serviceName: 'EOP', msgName: 'mt940' },
	},
	mt942: {
		label: 'Intraday report (MT942)',
		direction: 'download',
		service: { serviceName: 'STM', msgName: 'mt942' },
	},
	sct: {
		label: 'SEPA credit transfer (pain.001)',
		direction: 'upload',
		service: { serviceName: 'SCT', msgName: 'pain.001' },
	},
	sctInstant: {
		label: 'SEPA instant credit transfer (pain.001)',
		direction: 'upload',
		service: { serviceName: 'SCI', msgName: 'pain.001' },
	},
	sddCore: {
		label: 'SEPA direct debit, core (pain.008)',
		direction: 'upload',
		service: { serviceName: 'SDD', serviceOption: 'COR', msgName: 'pain.008' },
	},
	sddB2b: {
		label: 'SEPA direct debit, B2B (pain.008)',
		direction: 'upload',
		service: { serviceName: 'SDD', serviceOption: 'B2B', msgName: 'pain.008' },
	},
	xct: {
		label: 'Foreign or urgent credit transfer (pain.001)',
		direction: 'upload',
		service: { serviceName: 'XCT', msgName: 'pain.001' },
	},
};
