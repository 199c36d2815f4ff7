import { escapeXml } from './xml';
import { XMLDATA_NS } from './constants';
import type { PayloadDocument } from './document';
import { BxdValidationError } from './errors';

/** The fields of a bxd ApplicationRequest (http://bxd.fi/xmldata/), per the published schema. */
export interface ApplicationRequestFields {
	customerId: string;
	command: string;
	/** Defaults to now. */
	timestamp?: Date;
	/** YYYY-MM-DD. */
	startDate?: string;
	/** YYYY-MM-DD. */
	endDate?: string;
	/** NEW, DLD or ALL for file lists. */
	status?: string;
	serviceId?: string;
	environment: string;
	fileReferences?: string[];
	userFilename?: string;
	targetId?: string;
	executionSerial?: string;
	encryption?: boolean;
	encryptionMethod?: string;
	compression?: boolean;
	compressionMethod?: string;
	amountTotal?: number;
	transactionCount?: number;
	softwareId: string;
	fileType?: string;
	/** The file, as it is to be sent (already compressed when `compression` is set). */
	content?: Buffer;
}

/** The longest value each element may hold, per the schema; an empty value is refused too. */
const MAX_LENGTH: Record<string, number> = {
	CustomerId: 16,
	Command: 32,
	Status: 10,
	ServiceId: 256,
	FileReference: 32,
	UserFilename: 80,
	TargetId: 80,
	ExecutionSerial: 32,
	EncryptionMethod: 35,
	CompressionMethod: 35,
	SoftwareId: 80,
	FileType: 40,
};

function checked(name: string, value: string): string {
	const max = MAX_LENGTH[name];
	// XML 1.0 cannot carry most control characters at all.
	// eslint-disable-next-line no-control-regex
	if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/.test(value)) {
		throw new BxdValidationError(name, `${name} contains a control character`);
	}
	if (max && (value.length < 1 || value.length > max)) {
		throw new BxdValidationError(
			name,
			`${name} must be 1 to ${max} characters long (got ${value.length})`,
		);
	}
	return value;
}

function isoDate(name: string, value: string): string {
	if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) {
		throw new BxdValidationError(
			name,
			`${name} must be a date in the form YYYY-MM-DD (got "${value}")`,
		);
	}
	return value;
}

/** xs:dateTime in UTC without fractions, the form every bank accepts. */
export function bxdTimestamp(date: Date): string {
	return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function element(name: string, value: string | undefined): string {
	if (value === undefined) return '';
	return `<${name}>${escapeXml(checked(name, value))}</${name}>`;
}

/**
 * Builds the ApplicationRequest with its children in schema order, leaving the file out as the
 * payload slot (its base64 goes in as bytes, never through a string template). Only the fields
 * given appear.
 */
export function buildApplicationRequest(fields: ApplicationRequestFields): PayloadDocument {
	const head = applicationRequestHead(fields);
	if (!fields.content) return { head: `${head}</ApplicationRequest>`, tail: '' };
	return {
		head: `${head}<Content>`,
		payload: Buffer.from(fields.content.toString('base64'), 'latin1'),
		tail: '</Content></ApplicationRequest>',
	};
}

/**
 * The ApplicationRequest as the text around its Content, for a file that is streamed into it:
 * `head` ends with the opening tag of Content, `tail` starts with its closing tag.
 */
export function buildApplicationRequestSlot(fields: Omit<ApplicationRequestFields, 'content'>): {
	head: string;
	tail: string;
} {
	return {
		head: `${applicationRequestHead(fields)}<Content>`,
		tail: '</Content></ApplicationRequest>',
	};
}

/** The ApplicationRequest from its opening tag to FileType, checked against the schema. */
function applicationRequestHead(fields: Omit<ApplicationRequestFields, 'content'>): string {
	const customerId = fields.customerId?.trim() ?? '';
	if (!customerId)
		throw new BxdValidationError(
			'CustomerId',
			'CustomerId is required (the Customer ID of the credential)',
		);
	const softwareId = fields.softwareId?.trim() ?? '';
	if (!softwareId)
		throw new BxdValidationError(
			'SoftwareId',
			'SoftwareId is required (the Software ID of the credential)',
		);
	if (!/^(PRODUCTION|TEST)$/.test(fields.environment)) {
		throw new BxdValidationError(
			'Environment',
			`Environment must be PRODUCTION or TEST (got "${fields.environment}")`,
		);
	}
	if (fields.startDate && fields.endDate && fields.endDate < fields.startDate) {
		throw new BxdValidationError(
			'EndDate',
			`EndDate ${fields.endDate} is before StartDate ${fields.startDate}`,
		);
	}
	const references = (fields.fileReferences ?? []).map((ref) => ref.trim()).filter(Boolean);
	const parts: string[] = [
		`<ApplicationRequest xmlns="${XMLDATA_NS}">`,
		element('CustomerId', customerId),
		element('Command', fields.command),
		`<Timestamp>${bxdTimestamp(fields.timestamp ?? new Date())}</Timestamp>`,
		fields.startDate ? `<StartDate>${isoDate('StartDate', fields.startDate)}</StartDate>` : '',
		fields.endDate ? `<EndDate>${isoDate('EndDate', fields.endDate)}</EndDate>` : '',
		element('Status', fields.status),
		element('ServiceId', fields.serviceId),
		`<Environment>${fields.environment}</Environment>`,
		references.length
			? `<FileReferences>${references.map((ref) => element('FileReference', ref)).join('')}</FileReferences>`
			: '',
		element('UserFilename', fields.userFilename),
		element('TargetId', fields.targetId),
		element('ExecutionSerial', fields.executionSerial),
		fields.encryption === undefined ? '' : `<Encryption>${fields.encryption}</Encryption>`,
		element('EncryptionMethod', fields.encryptionMethod),
		fields.compression === undefined ? '' : `<Compression>${fields.compression}</Compression>`,
		element('CompressionMethod', fields.compressionMethod),
		fields.amountTotal === undefined ? '' : `<AmountTotal>${fields.amountTotal}</AmountTotal>`,
		fields.transactionCount === undefined
			? ''
			: `<TransactionCount>${Math.trunc(fields.transactionCount)}</TransactionCount>`,
		element('SoftwareId', softwareId),
		element('FileType', fields.fileType),
	];
	return parts.join('');
}
