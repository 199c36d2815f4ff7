/** Installs the project's dependencies when they are missing or older than package-lock.json. */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

function run(cmd, args, opts = {}) {
	console.log(`\n> ${cmd} ${args.join(' ')}`);
	const res = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, env: { ...process.env, ...(opts.env ?? {}) } });
	if (res.status !== 0 && !opts.allowFail) {
		console.error(`\n${cmd} ${args.join(' ')} failed (exit ${res.status ?? res.signal})`);
		process.exit(res.status || 1);
	}
	return res.status ?? 1;
}

function depsStale() {
	const marker = path.join(root, 'node_modules', '.package-lock.json');
	if (!fs.existsSync(marker)) return true;
	return fs.statSync(path.join(root, 'package-lock.json')).mtimeMs > fs.statSync(marker).mtimeMs;
}

function ensureDependencies() {
	if (!depsStale()) return;
	console.log('Installing the npm dependencies (1 to 3 minutes the first time)...');
	// n8n's packages pull in isolated-vm, a native module that declares Node 24 and is never built
	// here (--ignore-scripts): npm's EBADENGINE warning about it is harmless, so npm prints only
	// errors.
	run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error']);
}

function has(command) {
	return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** The newest PostgreSQL server binaries Debian installed (/usr/lib/postgresql/<version>/bin/initdb). */
function hasPostgresServer() {
	const dir = '/usr/lib/postgresql';
	return fs.existsSync(dir) && fs.readdirSync(dir).some((v) => fs.existsSync(path.join(dir, v, 'bin', 'initdb')));
}

/**
 * Debian packages the tests use: xmlsec1, an XML-signature verifier that is not ours; xmllint
 * (libxml2-utils) for XSD validation of built payment files; redis-server
 * and postgresql for the queue-mode end-to-end test (test/e2e/cluster.e2e.ts starts its own
 * throwaway instances; the packages' own services are not needed).
 */
function ensureSystemPackages() {
	const wanted = [
		['xmlsec1', () => has('xmlsec1')],
		['libxml2-utils', () => has('xmllint')],
		['redis-server', () => has('redis-server')],
		['postgresql', hasPostgresServer],
		['openssh-server', () => fs.existsSync('/usr/sbin/sshd')],
		['gnupg', () => has('gpg')],
	];
	const missing = wanted.filter(([, present]) => !present()).map(([pkg]) => pkg);
	if (!missing.length) return;
	if (!has('apt-get')) {
		console.error(`Missing ${missing.join(', ')} and no apt-get to install it: install it with your package manager.`);
		process.exit(1);
	}
	const sudo = process.getuid && process.getuid() !== 0 ? ['sudo'] : [];
	const apt = (args) =>
		sudo.length
			? run('sudo', ['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args])
			: run('apt-get', args, { env: { DEBIAN_FRONTEND: 'noninteractive' } });
	apt(['update', '-qq']);
	apt(['install', '-y', '-qq', '--no-install-recommends', ...missing]);
	// Debian starts the services it installs; the tests start their own instances on free ports.
	for (const service of ['redis-server', 'postgresql', 'ssh']) {
		if (missing.includes(service === 'ssh' ? 'openssh-server' : service) && has('service')) run(sudo[0] ?? 'service', [...(sudo.length ? ['service'] : []), service, 'stop'], { allowFail: true });
	}
}

module.exports = { root, run, ensureDependencies, ensureSystemPackages };
