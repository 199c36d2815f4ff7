/**
 * Installs what the end-to-end tests need into the cache (Node 24 and n8n, Chromium for the
 * editor tests), so that `npm test` can do it while the fast suites run: the install is mostly
 * network and disk, the suites mostly CPU. The e2e global set-up then finds everything cached (or
 * waits on the installer's lock, should this still be running). Exits 0 even when an install
 * fails: the e2e set-up tries again and reports the failure with the tests.
 *
 *   npx ts-node --transpile-only test/e2e/prepare.ts
 */
import { ensureChromium, ensureN8n } from './lib/install';

const say = (line: string): void => {
	process.stdout.write(`[e2e install] ${line}\n`);
};

const started = Date.now();
try {
	const n8n = ensureN8n(say);
	say(n8n.installSeconds ? `n8n installed (${n8n.installSeconds.toFixed(0)} s)` : 'n8n cached');
} catch (error) {
	say(`n8n could not be installed: ${(error as Error).message.split('\n')[0]}`);
}
const chromium = ensureChromium(say);
say(chromium.path ? `chromium at ${chromium.path}` : `no chromium: ${chromium.reason}`);
say(`done after ${((Date.now() - started) / 1000).toFixed(0)} s`);
