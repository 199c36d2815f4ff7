/** Check digits and shapes of the identifiers in payments (pure functions, no I/O). */

/**
 * ISO 7064 mod 97-10 remainder of a text of digits and letters, letters counting as two digits
 * (A=10 ... Z=35, as ISO 13616 and ISO 11649 convert them), computed digit by digit.
 */
function mod97(text: string): number {
	let remainder = 0;
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (code >= 48 && code <= 57) remainder = (remainder * 10 + code - 48) % 97;
		else remainder = (remainder * 100 + code - 55) % 97;
	}
	return remainder;
}

/** Account number lengths of IBAN countries (ISO 13616 registry); other countries: 15 to 34. */
const IBAN_LENGTHS: Record<string, number> = {
	AD: 24,
	AE: 23,
	AL: 28,
	AT: 20,
	AZ: 28,
	BA: 20,
	BE: 16,
	BG: 22,
	BH: 22,
	BR: 29,
	BY: 28,
	CH: 21,
	CR: 22,
	CY: 28,
	CZ: 24,
	DE: 22,
	DK: 18,
	DO: 28,
	EE: 20,
	EG: 29,
	ES: 24,
	FI: 18,
	FO: 18,
	FR: 27,
	GB: 22,
	GE: 22,
	GI: 23,
	GL: 18,
	GR: 27,
	GT: 28,
	HR: 21,
	HU: 28,
	IE: 22,
	IL: 23,
	IQ: 23,
	IS: 26,
	IT: 27,
	JO: 30,
	KW: 30,
	KZ: 20,
	LB: 28,
	LC: 32,
	LI: 21,
	LT: 20,
	LU: 20,
	LV: 21,
	MC: 27,
	MD: 24,
	ME: 22,
	MK: 19,
	MR: 27,
	MT: 31,
	MU: 30,
	NL: 18,
	NO: 15,
	PK: 24,
	PL: 28,
	PS: 29,
	PT: 25,
	QA: 29,
	RO: 24,
	RS: 22,
	SA: 24,
	SC: 31,
	SE: 24,
	SI: 19,
	SK: 24,
	SM: 27,
	ST: 25,
	SV: 28,
	TL: 23,
	TN: 24,
	TR: 26,
	UA: 29,
	VA: 22,
	VG: 24,
	XK: 20,
};

/** IBAN without spaces, upper case. */
export function normalizeIban(iban: string): string {
	return iban.replace(/\s+/g, '').toUpperCase();
}

/** Why an IBAN is not valid (shape, country length, mod-97), or undefined when it is. */
export function ibanProblem(input: string): string | undefined {
	const iban = normalizeIban(input);
	if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban))
		return 'must be 2 letters, 2 check digits and 11 to 30 letters or digits';
	const expected = IBAN_LENGTHS[iban.slice(0, 2)];
	if (expected && iban.length !== expected)
		return `must be ${expected} characters long for ${iban.slice(0, 2)} (found ${iban.length})`;
	if (mod97(iban.slice(4) + iban.slice(0, 4)) !== 1)
		return 'check digits do not match (ISO 13616 mod-97)';
	return undefined;
}

export function isValidIban(iban: string): boolean {
	return ibanProblem(iban) === undefined;
}

/**
 * BIC (ISO 9362): 4 letters or digits (institution), 2 letters (country), 2 location, optional 3
 * branch.
 */
export function isValidBic(bic: string): boolean {
	return /^[A-Z0-9]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(bic);
}

/**
 * RF creditor reference (ISO 11649): "RF", 2 check digits, 1 to 21 letters or digits, mod-97 = 1.
 */
export function isValidRfReference(input: string): boolean {
	const ref = input.replace(/\s+/g, '').toUpperCase();
	if (!/^RF\d{2}[A-Z0-9]{1,21}$/.test(ref)) return false;
	return mod97(ref.slice(4) + ref.slice(0, 4)) === 1;
}

/** Check digit of a Finnish reference base (weights 7, 3, 1 from the right). */
export function finnishReferenceCheckDigit(base: string): number {
	let sum = 0;
	const weights = [7, 3, 1];
	for (let i = 0; i < base.length; i++) sum += Number(base[base.length - 1 - i]) * weights[i % 3];
	return (10 - (sum % 10)) % 10;
}

/** Finnish national reference number: 4 to 20 digits, the last one the 7-3-1 check digit. */
export function isValidFinnishReference(input: string): boolean {
	const ref = input.replace(/\s+/g, '').replace(/^0+(?=\d)/, '');
	if (!/^\d{4,20}$/.test(ref)) return false;
	return finnishReferenceCheckDigit(ref.slice(0, -1)) === Number(ref[ref.length - 1]);
}

/** An RF reference made from a Finnish reference (or any base of letters and digits). */
export function rfFromBase(base: string): string {
	const check = 98 - mod97(`${base}RF00`);
	return `RF${String(check).padStart(2, '0')}${base}`;
}

/** What a creditor reference is: ISO 11649 RF, Finnish national, or neither. */
export function referenceKind(reference: string): 'RF' | 'FI' | undefined {
	if (isValidRfReference(reference)) return 'RF';
	if (isValidFinnishReference(reference)) return 'FI';
	return undefined;
}

/**
 * Why a SEPA creditor identifier is not valid, or undefined when it is: country code, 2 check
 * digits, a 3-character business code (not part of the check), then the national identifier; the
 * check digits are ISO 7064 mod 97-10 over the national identifier and the country code (EPC262-08).
 */
export function creditorIdentifierProblem(input: string): string | undefined {
	const id = input.replace(/\s+/g, '').toUpperCase();
	if (!/^[A-Z]{2}\d{2}[A-Z0-9]{3}[A-Z0-9]{1,28}$/.test(id))
		return 'must be a country code, 2 check digits, a 3-character business code and the national identifier (at most 35 characters)';
	if (mod97(id.slice(7) + id.slice(0, 4)) !== 1)
		return 'check digits do not match (ISO 7064 mod 97 over the national identifier)';
	return undefined;
}
