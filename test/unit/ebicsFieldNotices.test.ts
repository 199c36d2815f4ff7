/**
 * The EBICS panels mark a typed BTF parameter (Other Service, the EBICS Trigger's Other Services)
 * or an EBICS 2.5 Other Order Type the node will refuse, as soon as it is typed: a notice under the
 * field, which n8n shows by these display rules in the editor. The notice follows exactly the
 * check the node runs (checkService of the EBICS library): shown for every value it refuses,
 * hidden for every value it takes.
 */
import type { INodeParameters, INodeProperties } from 'n8n-workflow';
import { NodeHelpers, resetSafeRegexEngine, setSafeRegexEngine } from 'n8n-workflow';

import { CorporateBankingEbicsApi } from '../../credentials/CorporateBankingEbicsApi.credentials';
import { Ebics } from '../../nodes/Ebics/Ebics.node';
import { attempt } from '../../nodes/shared/common/attempt';
import { EbicsTrigger } from '../../nodes/EbicsTrigger/EbicsTrigger.node';
import { checkService, ORDER_TYPE_PATTERN, parseHash, USUAL_BTF_VALUES, type BtfService } from '../../nodes/shared/ebics';
import { EBICS_CHECK_FIELD } from '../../nodes/shared/ebics/credential/ebicsCredential';

// Version 1's fields; version 2 shows the same ones (test/unit/ebicsResources.test.ts).
const ebics = new Ebics().getNodeType(1).description.properties;
const trigger = new EbicsTrigger().description.properties;
const typedInTrigger = (
	trigger.find((p) => p.name === 'otherServices')!.options![0] as { values: INodeProperties[] }
).values;

/** Each typed field, the BTF parameter checkService reads it as, and values a person types. */
const FIELDS: Array<[string, keyof BtfService, string[]]> = [
	['serviceName', 'serviceName', ['EOP', ' SCT ', 'eop', 'EO P', 'EOPX', 'E', 'ÉOP']],
	['customScope', 'scope', ['DE', ' de ', 'DE ', 'D', 'DEUT', 'D E', '1AB']],
	['serviceOption', 'serviceOption', ['COR', 'B2B ', 'cor', 'CO', 'URGENTPAYMX', 'B 2B']],
	['msgName', 'msgName', ['camt.053', ' pain.001', 'CAMT.053', 'camt 053', 'camt.053.001', 'mt940']],
	['customMsgVersion', 'msgVersion', ['08', ' 09 ', '8', '0008', '08a', '1.0']],
	['msgVariant', 'msgVariant', ['001', '1', 'ab']],
	['msgFormat', 'msgFormat', ['XML', 'xml', 'TXT1', 'ABCDE', ' X ']],
];

/** Whether the node refuses the value when it runs (checkService on the typed service). */
function refused(parameter: keyof BtfService, value: string): boolean {
	const service: BtfService = { serviceName: 'EOP', msgName: 'camt.053', [parameter]: value };
	try {
		checkService(service);
		return false;
	} catch {
		return true;
	}
}

/** Whether the download's notice of a field shows for these values. */
const shown = (name: string, values: INodeParameters): boolean =>
	NodeHelpers.displayParameter(values, ebics.find((p) => p.name === name && p.displayOptions?.show?.operation?.includes('download'))!, null, null);

describe('EBICS: typed BTF parameters marked as typed, by the rules the node checks', () => {
	for (const [field, parameter, values] of FIELDS)
		it.each(values)(`${field} %j: the notice shows exactly when the node refuses it`, (value) => {
			const expected = value.trim() !== '' && refused(parameter, value);
			for (const operation of ['download', 'upload']) {
				const notice = ebics.filter(
					(p) => p.name === `${field}Notice` && p.displayOptions?.show?.operation?.includes(operation),
				);
				expect(notice).toHaveLength(1);
				const values = { operation, [`${operation}Service`]: 'custom', [field]: value };
				expect([operation, NodeHelpers.displayParameter(values, notice[0], null, null)]).toEqual([operation, expected]);
			}
			// The EBICS Trigger's Other Services: the notice beside the field in the same entry.
			const inTrigger = typedInTrigger.find((p) => p.name === `${field}Notice`)!;
			expect(['trigger', NodeHelpers.displayParameter({ [field]: value }, inTrigger, null, null)]).toEqual(['trigger', expected]);
		});

	it('a notice is never shown for an empty field (n8n marks a required one) or an expression', () => {
		for (const [field] of FIELDS)
			for (const value of ['', '={{ $json.service }}'])
				expect([field, value, shown(`${field}Notice`, { operation: 'download', downloadService: 'custom', [field]: value })]).toEqual([field, value, false]);
	});

	it('the notices are not shown for a preset service, the Message Version of a preset is checked the same way', () => {
		const values = { operation: 'download', downloadService: 'camt053', scope: '', serviceName: 'e o p', msgVersion: '8' };
		const visible = ebics.filter((p) => p.type === 'notice' && NodeHelpers.displayParameter(values, p, null, null)).map((p) => p.name);
		expect(visible).toEqual(['msgVersionNotice']);
		expect(refused('msgVersion', '8')).toBe(true);
	});

	it.each(['CRZ', ' Z01 ', 'crz', 'CR Z', 'CRZZ', 'C', 'BT-'])('an Other Order Type %j: the notice shows exactly when the node refuses it', (value) => {
		for (const direction of ['download', 'upload']) {
			const values = { operation: direction, [`${direction}Service`]: 'orderType', [`${direction}OrderType`]: 'other', [`${direction}OtherOrderType`]: value };
			const notice = ebics.find((p) => p.name === `${direction}OtherOrderTypeNotice`)!;
			expect([direction, NodeHelpers.displayParameter(values, notice, null, null)]).toEqual([direction, !ORDER_TYPE_PATTERN.test(value.trim())]);
		}
	});
});

describe("EBICS: the usual values pass without n8n's regular expression engine (its 250 ms wall-clock limit fails runs on a busy machine)", () => {
	/** Runs `check` with n8n's engine replaced by one that fails every pattern it is given. */
	function withoutPatterns(check: () => void): void {
		const refuse = (): never => {
			throw new Error('Regular expression execution timed out');
		};
		setSafeRegexEngine({ exec: refuse, test: refuse, replace: refuse, matchAll: refuse, split: refuse });
		try {
			check();
		} finally {
			resetSafeRegexEngine();
		}
	}

	it.each(Object.entries(USUAL_BTF_VALUES))('%s: each usual value is one the node takes, and its notice stays hidden without a pattern', (parameter, usual) => {
		const field = FIELDS.find(([, p]) => p === parameter)?.[0];
		for (const value of usual!) {
			expect([value, refused(parameter as keyof BtfService, value)]).toEqual([value, false]);
			if (field) withoutPatterns(() => expect([value, shown(`${field}Notice`, { operation: 'upload', uploadService: 'custom', [field]: value })]).toEqual([value, false]));
		}
	});

	it("an Other Order Type from the node's list or the banks' usual ones: no notice, no pattern; another one still goes through the rule", () => {
		const values = (value: string) => ({ operation: 'download', downloadService: 'orderType', downloadOrderType: 'other', downloadOtherOrderType: value });
		const notice = ebics.find((p) => p.name === 'downloadOtherOrderTypeNotice')!;
		withoutPatterns(() => {
			for (const value of ['C53', 'STA', 'CRZ', 'Z53', 'XE2', 'CDZ']) expect([value, NodeHelpers.displayParameter(values(value), notice, null, null)]).toEqual([value, false]);
			expect(() => NodeHelpers.displayParameter(values('Q7X'), notice, null, null)).toThrow('timed out');
		});
	});
});

/**
 * The credential's bank key hashes: a notice under each field while what is typed is not a hash
 * parseHash takes (what the credential test refuses naming the field), hidden once it is one.
 */
describe("EBICS credential: the bank's key hashes marked as typed, by the rule the credential checks", () => {
	const credential = new CorporateBankingEbicsApi().properties;
	const HASH = 'AF 2A 5D 7D AD D8 2F 71 65 95 6B 5A 95 90 F6 25\nFA 41 1A 47 DF A3 C8 B8 11 ED 33 D0 13 87 5E D9';
	const TYPED = [
		'',
		HASH,
		HASH.toLowerCase(),
		HASH.replace(/\s/g, ''),
		HASH.replace(/ /g, ':'),
		` ${HASH.replace('\n', ' ')} `,
		Buffer.from(HASH.replace(/\s/g, ''), 'hex').toString('base64'),
		'AF',
		'AF 2A 5D',
		HASH.slice(0, -1),
		`${HASH} 00`,
		HASH.replace('AF', 'AG'),
		`${HASH}.`,
		'SHA256: AF 2A',
		Buffer.from(HASH.replace(/\s/g, ''), 'hex').toString('base64').slice(0, -1),
	];
	for (const field of ['bankAuthenticationHash', 'bankEncryptionHash'])
		it.each(TYPED)(`${field} %j: the notice shows exactly when the credential refuses it`, (value) => {
			const notices = credential.filter((p) => p.name === `${field}Notice`);
			expect(notices).toHaveLength(1);
			const refusedHash = value.trim() !== '' && !attempt(() => parseHash(value, field)).ok;
			expect(NodeHelpers.displayParameter({ [field]: value, [EBICS_CHECK_FIELD]: '' }, notices[0], null, null)).toBe(refusedHash);
			// It stands right under its field.
			expect(credential[credential.indexOf(notices[0]) - 1].name).toBe(field);
		});

	it('a ready subscriber (its check field holds a time): no notice, and n8n loading the credential to run a node tries no regular expression', () => {
		// n8n stops a regular expression after 250 ms of wall time and fails the run: on a busy
		// machine even a short pattern can. Count what n8n's engine is asked to match.
		const tried: string[] = [];
		setSafeRegexEngine({
			exec: (p, i, f) => new RegExp(p, f).exec(i),
			test: (p, i, f) => (tried.push(i), new RegExp(p, f).test(i)),
			replace: (p, i, f, r) => i.replace(new RegExp(p, f), r),
			matchAll: (p, i, f) => Array.from(i.matchAll(new RegExp(p, f))),
			split: (p, i, f) => i.split(new RegExp(p, f)),
		} as Parameters<typeof setSafeRegexEngine>[0]);
		try {
			const ready = { url: 'https://bank.example/ebics', hostId: 'HOST', partnerId: 'P', userId: 'U', bankAuthenticationHash: HASH, bankEncryptionHash: HASH, [EBICS_CHECK_FIELD]: '2026-12-02T10:00:00.000Z' };
			const loaded = NodeHelpers.getNodeParameters(credential, ready, true, false, null, null);
			expect(loaded).toMatchObject({ bankAuthenticationHash: HASH, bankEncryptionHash: HASH });
			expect(tried).toEqual([]);
			for (const field of ['bankAuthenticationHash', 'bankEncryptionHash'])
				expect(NodeHelpers.displayParameter({ ...ready, [field]: 'AF 2A' }, credential.find((p) => p.name === `${field}Notice`)!, null, null)).toBe(false);
			// While the subscriber is not ready, the typed hashes are checked (this is the editor's case).
			NodeHelpers.getNodeParameters(credential, { ...ready, [EBICS_CHECK_FIELD]: '' }, true, false, null, null);
			expect(tried.length).toBeGreaterThan(0);
			expect(new Set(tried)).toEqual(new Set([HASH]));
		} finally {
			resetSafeRegexEngine();
		}
	});
});
