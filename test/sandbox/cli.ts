/**
 * Runs the sandbox bank as a process:
 *
 *   ts-node --transpile-only test/sandbox/cli.ts [--host H] [--port N] [--mtls-port N]
 *     [--foreign-port N] [--seed N] [--trades N] [--cert-dir DIR] [--mock-error-rate R]
 *     [--state-file PATH] [--quiet]
 *
 * Prints the URLs and ready-to-paste n8n credential values, optionally writes them as
 * JSON to --state-file, and runs until SIGINT/SIGTERM.
 */
import { rmSync, writeFileSync } from 'node:fs';

import { startSandbox, STATE_TEXT, type SandboxOptions } from './index';

interface CliArgs {
	options: SandboxOptions;
	stateFile?: string;
	quiet: boolean;
}

const USAGE =
	'Usage: cli.ts [--host H] [--port N] [--mtls-port N] [--foreign-port N] [--seed N] [--trades N] ' +
	'[--cert-dir DIR] [--mock-error-rate R] [--state-file PATH] [--quiet]';

/** Flags that set a sandbox option to their value, as text or as a number. */
const TEXT_OPTIONS: Record<string, 'host' | 'certDir'> = { '--host': 'host', '--cert-dir': 'certDir' };
const NUMBER_OPTIONS: Record<string, 'port' | 'mtlsPort' | 'foreignPort' | 'seed' | 'trades' | 'mockErrorRate'> = {
	'--port': 'port',
	'--mtls-port': 'mtlsPort',
	'--foreign-port': 'foreignPort',
	'--seed': 'seed',
	'--trades': 'trades',
	'--mock-error-rate': 'mockErrorRate',
};

function parseArgs(argv: string[]): CliArgs {
	const options: SandboxOptions = {};
	let stateFile: string | undefined;
	let quiet = false;
	for (let index = 0; index < argv.length; index++) {
		const arg = argv[index];
		const [flag, inline] = arg.includes('=')
			? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
			: [arg, undefined];
		const value = (): string => {
			const next = inline ?? argv[++index];
			if (next === undefined) throw new Error(`${flag} needs a value`);
			return next;
		};
		const number = (): number => {
			const parsed = Number(value());
			if (!Number.isFinite(parsed)) throw new Error(`${flag} needs a number`);
			return parsed;
		};
		if (Object.hasOwn(TEXT_OPTIONS, flag)) options[TEXT_OPTIONS[flag]] = value();
		else if (Object.hasOwn(NUMBER_OPTIONS, flag)) options[NUMBER_OPTIONS[flag]] = number();
		else if (flag === '--state-file') stateFile = value();
		else if (flag === '--quiet') quiet = true;
		else if (flag === '--help' || flag === '-h') {
			process.stdout.write(`${USAGE}\n`);
			process.exit(0);
		} else throw new Error(`Unknown argument ${arg}\n${USAGE}`);
	}
	return { options, stateFile, quiet };
}

async function main(): Promise<void> {
	const args = parseArgs(process.argv.slice(2));
	const bank = await startSandbox(args.options);
	const state = {
		pid: process.pid,
		urls: bank.urls,
		clients: bank.clients,
		credentials: bank.credentialValues(),
		enrolment: Object.fromEntries(
			(['nordea', 'op', 'samlink', 'aktia', 'pop', 'saastopankki', 'handelsbanken'] as const).map((profile) => [profile, bank.enrolmentCredential(profile)]),
		),
		events: bank.eventSettings(),
		// Danske Bank: a credential with pasted certificates, and one that enrols from a fresh PIN.
		danske: { paste: bank.danskeCredential(), enrol: bank.danskeCredential({ pin: 'new' }) },
		certDir: bank.tls.certDir,
		// EBICS: what a client of each sandbox subscriber needs (the READY1 subscriber's keys included).
		ebics: [...bank.ebics.subscribers.values()].map((subscriber) => bank.ebicsClient(subscriber.partnerId, subscriber.userId)),
	};
	if (args.stateFile)
		writeFileSync(args.stateFile, JSON.stringify(state, null, '\t'), { mode: 0o600 });
	if (!args.quiet) {
		const lines: string[] = ['Sandbox bank is running.', '', 'URLs:'];
		// A URL group (a certificate service per bank dialect, Danske's services) prints one line per URL.
		const urlLines = (name: string, value: unknown): string[] =>
			typeof value === 'object' && value !== null
				? Object.entries(value).flatMap(([key, inner]) => urlLines(`${name}.${key}`, inner))
				: [`  ${name.padEnd(18)} ${String(value)}`];
		for (const [name, url] of Object.entries(bank.urls)) lines.push(...urlLines(name, url));
		lines.push('', 'Event trigger settings:');
		for (const [name, value] of Object.entries(bank.eventSettings()))
			lines.push(`  ${name.padEnd(18)} ${value}`);
		lines.push(
			'',
			'Queue a sample event for the Bank Event Trigger:',
			`  curl -k -X POST ${bank.urls.admin}/events -H 'content-type: application/json' -d '{"count": 1}'`,
		);
		lines.push('', 'One-time PINs to enrol a File Service credential (Certificate: Enrol With a PIN From the Bank; each PIN works once):');
		for (const [profile, values] of Object.entries(state.enrolment)) {
			lines.push(`  ${profile.padEnd(14)} PIN ${String(values.pin).padEnd(18)} Certificate Service URL ${String(values.certificateServiceUrl)}`);
		}
		lines.push(`  ${'danske'.padEnd(14)} PIN ${String(state.danske.enrol.pin).padEnd(18)} Certificate Service URL ${String(state.danske.enrol.certificateServiceUrl)} (Service URL ${bank.urls.danske.soap}; Bank Certificate: the sandbox CA, ca.pem)`);
		lines.push('  More: curl -k -X POST ' + `${bank.urls.admin}/enrolment -H 'content-type: application/json' -d '{"bank": "op"}'` + ' (or "danske")');
		const hashes = bank.ebics.letterHashes();
		const hashesH004 = bank.ebics.letterHashes('H004');
		lines.push(
			'',
			`EBICS bank (EBICS 3.0 H005, and 2.5 H004): URL ${bank.urls.ebics}  Host ID ${bank.ebics.hostId}`,
			'  (this bank of its own, on these ports: with `npm run demo -- --ui` running, use the values and the activation command the demo prints for its bank)',
			"  The bank's key hashes, as its letter prints them (pin them in the credential):",
			`    authentication (X002): ${hashes.authentication.replace(/\n/g, ' ')}`,
			`    encryption (E002):     ${hashes.encryption.replace(/\n/g, ' ')}`,
			"  For a credential with EBICS Version H004, its EBICS 2.5 letter's hashes (of exponent and modulus):",
			`    authentication (X002): ${hashesH004.authentication.replace(/\n/g, ' ')}`,
			`    encryption (E002):     ${hashesH004.encryption.replace(/\n/g, ' ')}`,
			'  Subscribers (Partner ID / User ID: state):',
		);
		for (const subscriber of bank.ebics.subscribers.values()) {
			lines.push(`    ${`${subscriber.partnerId} / ${subscriber.userId}`.padEnd(22)} ${STATE_TEXT[subscriber.state]}`);
		}
		lines.push(
			'  After INI, HIA and the letters, activate a subscriber as the bank would:',
			`    curl -k -X POST ${bank.urls.admin}/ebics/subscribers/PARTNER1/USER1/activate`,
			`  Subscribers and their state: curl -k ${bank.urls.admin}/ebics/subscribers`,
			'  PARTNER2 / READY1 is active already; its keys (to import) are in the state file (--state-file) under "ebics".',
		);
		lines.push('', `Certificates and keys (PEM files): ${bank.tls.certDir}`);
		for (const [type, values] of Object.entries(state.credentials)) {
			lines.push('', `Credential ${type}:`);
			for (const [field, value] of Object.entries(values)) {
				const text = String(value);
				if (text.includes('\n'))
					lines.push(
						`  ${field}:`,
						...text
							.trimEnd()
							.split('\n')
							.map((line) => `    ${line}`),
					);
				else lines.push(`  ${field}: ${text === '' ? '(empty)' : text}`);
			}
		}
		lines.push('', 'Press Ctrl+C to stop.');
		process.stdout.write(`${lines.join('\n')}\n`);
	}
	process.stdout.write(`SANDBOX_READY ${bank.urls.base}\n`);
	let stopping = false;
	const shutdown = (signal: string): void => {
		if (stopping) return;
		stopping = true;
		if (!args.quiet) process.stdout.write(`Received ${signal}, stopping.\n`);
		void bank.stop().then(
			() => {
				if (args.stateFile) rmSync(args.stateFile, { force: true });
				process.exit(0);
			},
			() => process.exit(1),
		);
	};
	process.on('SIGINT', () => shutdown('SIGINT'));
	process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
	process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
	process.exit(1);
});
