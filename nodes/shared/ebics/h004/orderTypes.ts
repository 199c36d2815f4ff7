/**
 * The EBICS 2.5 order types the EBICS node offers, and the EBICS 2.5 order type of each BTF
 * preset where one exists across banks (the German DK order types of the EBICS 3.0 mapping
 * table: C53 for BTD EOP camt.053, CCT for BTU SCT pain.001, ...). Presets without one
 * (pain.002 status reports: CRZ at German banks, Z01 at Swiss banks; SEPA instant; foreign
 * payments) need the bank's order type typed.
 */

export interface H004OrderType {
	orderType: string;
	label: string;
	direction: 'download' | 'upload';
	/** The name of the file when the data is not a ZIP container. */
	fileName: string;
	/** FDL and FUL: the bank names the file format. */
	fileFormat?: boolean;
}

function type(
	orderType: string,
	direction: H004OrderType['direction'],
	label: string,
	fileName: string,
	fileFormat = false,
): H004OrderType {
	return { orderType, label, direction, fileName, ...(fileFormat ? { fileFormat } : {}) };
}

/** In the order the editor lists them. */
export const H004_ORDER_TYPES: Record<string, H004OrderType> = Object.fromEntries(
	[
		type('C53', 'download', 'End-of-day statement camt.053 (C53)', 'camt.053.xml'),
		type('C52', 'download', 'Intraday report camt.052 (C52)', 'camt.052.xml'),
		type('C54', 'download', 'Debit and credit notifications camt.054 (C54)', 'camt.054.xml'),
		type('Z53', 'download', 'Statement camt.053, Swiss banks (Z53)', 'camt.053.xml'),
		type('Z52', 'download', 'Intraday report camt.052, Swiss banks (Z52)', 'camt.052.xml'),
		type('Z54', 'download', 'Notifications camt.054, Swiss banks (Z54)', 'camt.054.xml'),
		type('STA', 'download', 'End-of-day statement MT940 (STA)', 'mt940.txt'),
		type('VMK', 'download', 'Intraday report MT942 (VMK)', 'mt942.txt'),
		type('FDL', 'download', 'File by its format (FDL)', 'fdl.dat', true),
		type('HAC', 'download', 'Customer acknowledgement pain.002 (HAC)', 'hac.xml'),
		type('PTK', 'download', 'Customer protocol (PTK)', 'ptk.txt'),
		type('HPD', 'download', "Bank's EBICS parameters (HPD)", 'hpd.xml'),
		type('CCT', 'upload', 'SEPA credit transfer pain.001 (CCT)', 'pain.001.xml'),
		type('CDD', 'upload', 'SEPA direct debit core pain.008 (CDD)', 'pain.008.xml'),
		type('CDB', 'upload', 'SEPA direct debit B2B pain.008 (CDB)', 'pain.008.xml'),
		type('FUL', 'upload', 'File by its format (FUL)', 'ful.dat', true),
	].map((entry) => [entry.orderType, entry]),
);

/** The EBICS 2.5 order type of a BTF preset (SERVICE_PRESETS key), where one exists. */
export const H004_PRESET_ORDER_TYPES: Record<string, string> = {
	camt053: 'C53',
	camt052: 'C52',
	camt054: 'C54',
	mt940: 'STA',
	mt942: 'VMK',
	sct: 'CCT',
	sddCore: 'CDD',
	sddB2b: 'CDB',
};

/** The order types of one direction, in the editor's order. */
export function h004OrderTypes(direction: H004OrderType['direction']): H004OrderType[] {
	return Object.values(H004_ORDER_TYPES).filter((entry) => entry.direction === direction);
}

/**
 * How items name an EBICS 2.5 order: "CCT (SEPA credit transfer pain.001)", "FUL pain.001.001.03
 * (File by its format)", or the bare order type the node does not know.
 */
export function orderTypeLabel(orderType: string, fileFormat?: string): string {
	const entry = H004_ORDER_TYPES[orderType];
	const format = fileFormat ? ` ${fileFormat}` : '';
	return `${orderType}${format}${entry ? ` (${entry.label.replace(/ \([A-Z0-9]{3}\)$/, '')})` : ''}`;
}
