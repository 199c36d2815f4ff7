/**
 * Before the e2e test files: installs Node 24 + n8n (N8N_VERSION) into the cache (a no-op when
 * cached), builds and packs the package, and hands the result to the test files through a JSON
 * file named by CORPORATE_BANKING_E2E_CONTEXT. Failures are recorded, not thrown, so every test
 * reports them as its own failure and the run still produces a report.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { ensureN8n } from './lib/install';
import { DATABASE_TEMPLATE_ENV, makeDatabaseTemplate } from './lib/n8n';
import { buildAndPack } from './lib/package';
import type { E2eContext } from './lib/stack';

const say = (line: string): void => {
	process.stderr.write(`[e2e] ${line}\n`);
};

export default async function globalSetup(): Promise<void> {
	const ctx: E2eContext = { installSeconds: 0 };
	const started = Date.now();
	try {
		ctx.install = ensureN8n(say);
		ctx.installSeconds = ctx.install.installSeconds;
		say(
			ctx.installSeconds
				? `n8n ready after installing (${ctx.installSeconds.toFixed(0)} s)`
				: `n8n ${ctx.install.dir} (cached)`,
		);
	} catch (error) {
		ctx.installError = (error as Error).message;
		say(`real n8n could not be installed: ${ctx.installError.split('\n')[0]}`);
	}
	// Debian packages the queue-mode test needs (PostgreSQL, Redis), when missing; npm test has
	// done this already. In a child process: the set-up script exits on failure.
	const setup = spawnSync(process.execPath, ['-e', "require('./scripts/setup').ensureSystemPackages()"], {
		cwd: path.resolve(__dirname, '../..'),
		stdio: ['ignore', 'inherit', 'inherit'],
	});
	if (setup.status !== 0) say('could not install the Debian packages of the queue-mode test (see above)');
	try {
		ctx.pkg = buildAndPack({ build: process.env.CORPORATE_BANKING_E2E_BUILD !== '0', log: say });
	} catch (error) {
		ctx.packError = (error as Error).message;
		say(`build/pack failed: ${ctx.packError.split('\n')[0]}`);
	}
	const dir = mkdtempSync(path.join(os.tmpdir(), 'corporate-banking-e2e-'));
	if (ctx.install) {
		const database = path.join(dir, 'database.sqlite');
		try {
			await makeDatabaseTemplate(ctx.install, database);
			process.env[DATABASE_TEMPLATE_ENV] = database;
		} catch (error) {
			say(`each n8n migrates its own database: ${(error as Error).message.split('\n')[0]}`);
		}
	}
	const file = path.join(dir, 'context.json');
	writeFileSync(file, JSON.stringify(ctx));
	process.env.CORPORATE_BANKING_E2E_CONTEXT = file;
	say(`set-up took ${((Date.now() - started) / 1000).toFixed(0)} s`);
}
