/**
 * Bank SFTP Trigger through n8n's polling engine against a real OpenSSH server, with GnuPG as the
 * bank: every file the bank puts in the incoming folder is emitted exactly once, across restarts;
 * a file still being written is not taken; after delivery a file is left, moved or deleted only
 * once n8n has saved the hand-over, and a file whose move fails is never emitted twice; a file
 * that fails its signature is not emitted and not lost.
 */
import { appendFileSync, existsSync, readdirSync, rmSync, utimesSync } from 'node:fs';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { BankSftpTrigger } from '../../nodes/BankSftpTrigger/BankSftpTrigger.node';
import { SAMPLE_FILES } from '../../nodes/shared/delivery';
import { createPollHarness, type PollHarness } from '../harness/poll';
import { storedBytes } from '../helpers/fileTrigger';
import { Gpg } from '../helpers/gpg';
import { PACKAGE, packageCredentialTypes, SFTP, triggerNodeOf } from '../helpers/nodes';
import { sftpStore, sftpValues, type SftpKeys } from '../helpers/sftp';
import { startSshd, type Sshd } from '../helpers/sshd';

let sshd: Sshd;
let keys: SftpKeys;

beforeAll(async () => {
	sshd = await startSshd();
	const gpg = new Gpg();
	keys = { gpg, bankFp: gpg.generate('Bank <h2h@bank.example>', { algorithm: 'ed25519' }), customerFp: gpg.generate('Customer <treasury@customer.example>', { algorithm: 'ed25519' }) };
});
afterAll(async () => {
	await sshd?.stop();
	keys?.gpg.remove();
});
beforeEach(() => {
	for (const folder of ['incoming', 'archive']) for (const name of readdirSync(sshd.bankPath(folder))) rmSync(sshd.bankPath(folder, name));
});

function harness(parameters: IDataObject = {}, staticData?: IDataObject): PollHarness {
	return createPollHarness({
		node: triggerNodeOf('sftp-trigger', 'Bank SFTP Trigger', `${PACKAGE}.bankSftpTrigger`, parameters, SFTP, 'Bank SFTP'),
		nodeType: new BankSftpTrigger(),
		credentialTypes: packageCredentialTypes(),
		credentials: sftpStore(sftpValues(sshd, keys)),
		staticData,
		saveAfterActivation: true,
		binaryDataMode: 'filesystem',
	});
}

/** The bank puts a file: encrypted to the customer and signed by the bank. */
function arrive(name: string, content: string): void {
	sshd.put('incoming', name, keys.gpg.encrypt(Buffer.from(content), keys.customerFp, keys.bankFp));
}

const names = (result: INodeExecutionData[][] | null): string[] => (result?.[0] ?? []).map((i) => String(i.json.name));
const emittedNames = (h: PollHarness): string[] => h.emitted.flatMap((run) => names(run));

async function started(parameters: IDataObject = {}): Promise<PollHarness> {
	const h = harness(parameters);
	expect(await h.poll()).toBeNull();
	expect(h.saves).toBe(1);
	return h;
}

describe('exactly once', () => {
	it('files there at the start are left alone; each new file is emitted once, after it settled, decrypted; a restart changes nothing', async () => {
		arrive('old.xml.pgp', 'before the start');
		let h = await started();
		arrive('a.xml.pgp', '<a/>');
		// First sight: the file settles.
		expect(await h.poll()).toBeNull();
		const result = await h.poll();
		expect(names(result)).toEqual(['a.xml.pgp']);
		const item = result![0][0];
		expect(item.json).toMatchObject({ path: 'incoming/a.xml.pgp', decrypted: true, signed: true, fileName: 'a.xml' });
		expect((await storedBytes(item)).toString()).toBe('<a/>');
		expect(await h.poll()).toBeNull();

		arrive('b.xml.pgp', '<b/>');
		arrive('c.xml.pgp', '<c/>');
		expect(await h.poll()).toBeNull();
		h = h.reload(); // n8n restarted: the settling files were seen by a poll whose state was not saved
		expect(await h.poll()).toBeNull();
		expect(names(await h.poll()).sort()).toEqual(['b.xml.pgp', 'c.xml.pgp']);
		h = h.reload();
		expect(await h.poll()).toBeNull();
		expect(await h.poll()).toBeNull();
		expect(readdirSync(sshd.bankPath('incoming')).sort()).toEqual(['a.xml.pgp', 'b.xml.pgp', 'c.xml.pgp', 'old.xml.pgp']);
	});

	it('a file still being written is not taken: names of files being written are left out, and a file that grows waits until it stops', async () => {
		const h = await started({ decrypt: false, options: { settle: true } });
		sshd.put('incoming', '.d.xml.pgp.part', 'partial');
		const growing = sshd.put('incoming', 'e.csv', 'first line\n');
		expect(await h.poll()).toBeNull();
		appendFileSync(growing, 'second line\n');
		utimesSync(growing, new Date(), new Date(Date.now() + 5000));
		expect(await h.poll()).toBeNull(); // changed since the last poll: not settled
		const result = await h.poll();
		expect(names(result)).toEqual(['e.csv']);
		expect((await storedBytes(result![0][0])).toString()).toBe('first line\nsecond line\n');
		expect(result![0][0].json).toMatchObject({ decrypted: false });
		expect(emittedNames(h)).not.toContain('.d.xml.pgp.part');
	});

	it('a file that fails its signature is not emitted, stays at the bank, and the log says why', async () => {
		const h = await started({ options: { settle: false } });
		sshd.put('incoming', 'unsigned.pgp', keys.gpg.encrypt(Buffer.from('x'), keys.customerFp));
		expect(await h.poll()).toBeNull();
		expect(h.logs.join('\n')).toContain('incoming/unsigned.pgp is not emitted: The file is not signed: it is refused');
		expect(existsSync(sshd.bankPath('incoming', 'unsigned.pgp'))).toBe(true);
	});
});

describe('after delivery', () => {
	it('move: the file goes to the archive with the next poll, once n8n saved the hand-over', async () => {
		const h = await started({ afterDelivery: 'move', options: { settle: false } });
		arrive('m.xml.pgp', '<m/>');
		expect(names(await h.poll())).toEqual(['m.xml.pgp']);
		// Not moved within the poll that handed it over: n8n saves that poll's state after it.
		expect(existsSync(sshd.bankPath('incoming', 'm.xml.pgp'))).toBe(true);
		expect(h.savedNodeStaticData().due).toEqual([expect.objectContaining({ path: 'incoming/m.xml.pgp', action: 'move' })]);
		expect(await h.poll()).toBeNull();
		expect(existsSync(sshd.bankPath('incoming', 'm.xml.pgp'))).toBe(false);
		expect(existsSync(sshd.bankPath('archive', 'm.xml.pgp'))).toBe(true);
	});

	it('a move that fails leaves the file, never emitted twice; the move is tried again and done once it can be', async () => {
		const h = await started({ afterDelivery: 'move', options: { settle: false } });
		arrive('n.xml.pgp', '<n/>');
		sshd.put('archive', 'n.xml.pgp', 'an older file of the same name'); // the rename cannot replace it
		expect(names(await h.poll())).toEqual(['n.xml.pgp']);
		for (let i = 0; i < 3; i++) expect(await h.poll()).toBeNull();
		expect(existsSync(sshd.bankPath('incoming', 'n.xml.pgp'))).toBe(true);
		expect(h.logs.join('\n')).toContain('incoming/n.xml.pgp was delivered, but the move after delivery failed');
		const restarted = h.reload();
		expect(await restarted.poll()).toBeNull();
		rmSync(sshd.bankPath('archive', 'n.xml.pgp'));
		expect(await restarted.poll()).toBeNull();
		expect(existsSync(sshd.bankPath('archive', 'n.xml.pgp'))).toBe(true);
		expect(emittedNames(h).concat(emittedNames(restarted))).toEqual(['n.xml.pgp']);
	});

	it('move: files waiting in the folder when the trigger starts are taken (they would be gone had they been delivered)', async () => {
		arrive('waiting.xml.pgp', '<w/>');
		const h = harness({ afterDelivery: 'move', options: { settle: false } });
		expect(names(await h.poll())).toEqual(['waiting.xml.pgp']);
		expect(await h.poll()).toBeNull();
		expect(readdirSync(sshd.bankPath('archive'))).toEqual(['waiting.xml.pgp']);
	});

	it('delete: the file is deleted with the next poll', async () => {
		const h = await started({ afterDelivery: 'delete', options: { settle: false } });
		arrive('x.xml.pgp', '<x/>');
		expect(names(await h.poll())).toEqual(['x.xml.pgp']);
		expect(await h.poll()).toBeNull();
		expect(readdirSync(sshd.bankPath('incoming'))).toEqual([]);
	});
});

describe('Parsed Entries', () => {
	it('a camt.053 statement from the bank becomes its entries, the statements, then the file', async () => {
		const h = await started({ output: 'parse', options: { settle: false } });
		arrive('stmt.xml.pgp', SAMPLE_FILES['camt.053'].content);
		const result = await h.poll();
		const kinds = result![0].map((i) => i.json.kind);
		expect(kinds.filter((k) => k === 'entry')).toHaveLength(7);
		expect(kinds.filter((k) => k === 'statement')).toHaveLength(2);
		expect(kinds.at(-1)).toBe('file');
		expect(result![0].at(-1)!.json).toMatchObject({ parsed: true, format: 'camt.053.001.02', path: 'incoming/stmt.xml.pgp' });
	});
});
