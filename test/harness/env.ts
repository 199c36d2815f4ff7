/**
 * Test environment for the n8n engine, loaded by jest before every test file.
 *
 * n8n-core reads its configuration from the environment the first time one of
 * its services is created, and writes an instance settings file into
 * `$N8N_USER_FOLDER/.n8n`. Everything is pointed at a temporary folder so that
 * no test touches `~/.n8n` or depends on the developer's own n8n setup.
 *
 * One folder per jest worker process (test files in a worker run one after
 * the other). Jest gives test files no reliable hook at process exit, so
 * folders left by processes that no longer exist are removed here instead.
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PREFIX = 'n8n-harness-';
const userFolder = join(tmpdir(), `${PREFIX}${process.pid}`);

function isRunning(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}

try {
	for (const entry of readdirSync(tmpdir())) {
		const match = new RegExp(`^${PREFIX}(\\d+)$`).exec(entry);
		if (match && Number(match[1]) !== process.pid && !isRunning(Number(match[1]))) {
			rmSync(join(tmpdir(), entry), { recursive: true, force: true });
		}
	}
} catch {
	// best effort
}
mkdirSync(userFolder, { recursive: true });

const defaults: Record<string, string> = {
	N8N_HMAC_SIGNATURE_SECRET: 'harness-hmac-secret-not-a-secret',
	N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
	N8N_DIAGNOSTICS_ENABLED: 'false',
	N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
	N8N_TEMPLATES_ENABLED: 'false',
	N8N_PERSONALIZATION_ENABLED: 'false',
	N8N_RUNNERS_ENABLED: 'false',
	DB_TYPE: 'sqlite',
};

for (const [key, value] of Object.entries(defaults)) {
	if (process.env[key] === undefined) process.env[key] = value;
}
// Always replaced: the harness must never use a real n8n user folder or key.
process.env.N8N_USER_FOLDER = userFolder;
process.env.N8N_ENCRYPTION_KEY = 'harness-encryption-key-not-a-secret';
process.env.N8N_HARNESS_TMP = userFolder;
