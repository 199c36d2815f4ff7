/**
 * Amounts as exact decimals: bank files carry amounts as text; sums and checks are done in integer
 * units of 10^-5 (the most fraction digits ISO 20022 amounts allow), numbers are given out only
 * at the end.
 */
export const SCALE_DIGITS = 5;
const SCALE = 10 ** SCALE_DIGITS;

/** "1234.5" -> 123450000 (units of 10^-5); undefined when the text is not a plain decimal. */
export function toUnits(text: string): number | undefined {
	const match = /^\s*([+-]?)(\d+)(?:\.(\d{0,5}))?\s*$/.exec(text);
	if (!match) return undefined;
	const [, sign, whole, fraction = ''] = match;
	const units = Number(whole) * SCALE + Number(fraction.padEnd(SCALE_DIGITS, '0'));
	return sign === '-' ? -units : units;
}

export function fromUnits(units: number): number {
	return Math.round(units) / SCALE;
}

/** Minor units (e.g. cents) to units of 10^-5. */
export function minorToUnits(minor: number, digits = 2): number {
	return minor * 10 ** (SCALE_DIGITS - digits);
}

/** ISO 4217 currencies whose minor unit is not 2 digits (the rest have 2). */
const MINOR_UNITS: Record<string, number> = {
	BHD: 3,
	BIF: 0,
	CLF: 4,
	CLP: 0,
	DJF: 0,
	GNF: 0,
	IQD: 3,
	ISK: 0,
	JOD: 3,
	JPY: 0,
	KMF: 0,
	KRW: 0,
	KWD: 3,
	LYD: 3,
	OMR: 3,
	PYG: 0,
	RWF: 0,
	TND: 3,
	UGX: 0,
	UYI: 0,
	UYW: 4,
	VND: 0,
	VUV: 0,
	XAF: 0,
	XOF: 0,
	XPF: 0,
};

/** Currencies in use (ISO 4217, active codes); a payment in any other code is refused. */
const CURRENCIES = new Set(
	(
		'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF ' +
		'CHF CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD ' +
		'HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD ' +
		'MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN ' +
		'PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY ' +
		'TTD TWD TZS UAH UGX USD UYU UZS VES VND VUV WST XAF XCD XCG XOF XPF YER ZAR ZMW ZWG'
	).split(' '),
);

export function isCurrencyCode(code: string): boolean {
	return CURRENCIES.has(code);
}

export function minorUnits(currency: string): number {
	return MINOR_UNITS[currency] ?? 2;
}
