/**
 * The built package's SFTP library (dist/, ssh2 and openpgp.js bundled into dist/vendor.js
 * without ssh2's optional native parts) in a plain Node process, against the real OpenSSH server
 * and GnuPG: it logs in, uploads a signed and encrypted file that gpg opens, and reads it back.
 * Needs a build (`npm run build`), as test/unit/package.test.ts does.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { cacheRoot, NODE_VERSION } from '../e2e/lib/install';
import { Gpg } from '../helpers/gpg';
import { startSshd, type Sshd } from '../helpers/sshd';

const root = path.resolve(__dirname, '../..');
/**
 * The Node.js that n8n 2.x runs on (24, installed for the e2e tests), when it is there: Node 23
 * removed APIs that libraries still called (util.isDate, which ssh2 1.15 used); else this Node.
 */
const NODE_24 = path.join(cacheRoot(), `node-${NODE_VERSION}`, 'node_modules', 'node', 'node_modules', `node-${process.platform}-${process.arch}`, 'bin', 'node');
const node = existsSync(NODE_24) ? NODE_24 : process.execPath;
let sshd: Sshd;
let gpg: Gpg;

beforeAll(async () => {
	sshd = await startSshd();
	gpg = new Gpg();
});
afterAll(async () => {
	await sshd?.stop();
	gpg?.remove();
});

it(`the bundled library (no cpu-features, no native crypto binding), on Node ${existsSync(NODE_24) ? NODE_VERSION : process.version}, logs in, uploads what gpg opens, reads it back`, () => {
	expect(existsSync(path.join(root, 'dist/vendor.js'))).toBe(true);
	const bankFp = gpg.generate('Bank <h2h@bank.example>', { algorithm: 'ed25519' });
	const customerFp = gpg.generate('Customer <c@customer.example>', { algorithm: 'ed25519' });
	const input = path.join(gpg.home, 'input.json');
	writeFileSync(
		input,
		JSON.stringify({
			connect: { host: sshd.host, port: sshd.port, username: sshd.username, privateKey: sshd.clientKey, pinnedFingerprints: [sshd.fingerprint] },
			bank: gpg.exportPublic(bankFp),
			customer: gpg.exportSecret(customerFp),
		}),
	);
	const script = `
const { Readable } = require('node:stream');
const Module = require('node:module');
const load = Module._load;
const asked = [];
Module._load = function (request, ...rest) { asked.push(request); return load.call(this, request, ...rest); };
const sftp = require(${JSON.stringify(path.join(root, 'dist/nodes/shared/sftp/index.js'))});
const input = JSON.parse(require('node:fs').readFileSync(process.argv[1], 'utf8'));
(async () => {
	const session = await sftp.SftpSession.open(input.connect);
	const bank = await sftp.readPublicKeys('Bank', input.bank);
	const customer = await sftp.readPrivateKey('Customer', input.customer);
	const sealed = await sftp.protect(Readable.from([Buffer.from('bundled pain.001')]), { encryptTo: bank, signWith: customer });
	const result = await sftp.uploadStream(session, sealed, { folder: 'outgoing', name: 'bundled.pgp' });
	const chunks = [];
	for await (const c of session.read('outgoing/bundled.pgp')) chunks.push(c);
	session.close();
	const native = asked.filter((r) => /cpu-features|sshcrypto|\\.node$/.test(r));
	process.stdout.write(JSON.stringify({ bytes: result.bytes, readBack: Buffer.concat(chunks).length, native }));
})().catch((e) => { process.stderr.write(String(e && e.stack || e)); process.exit(1); });
`;
	const out = JSON.parse(execFileSync(node, ['-e', script, input], { encoding: 'utf8' })) as { bytes: number; readBack: number; native: string[] };
	expect(out.native).toEqual([]);
	expect(out.readBack).toBe(out.bytes);
	const opened = gpg.decrypt(readFileSync(sshd.bankPath('outgoing', 'bundled.pgp')));
	expect(opened.content.toString()).toBe('bundled pain.001');
	expect(opened.status).toContain(`VALIDSIG ${customerFp}`);
});
