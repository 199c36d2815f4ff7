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

/** Debian packages the tests use: xmlsec1 (an XML-signature verifier that is not ours) and xmllint (XSD validation of built payment files). */
function ensureSystemPackages() {
	const missing = [
		['xmlsec1', 'xmlsec1'],
		['xmllint', 'libxml2-utils'],
	].filter(([cmd]) => !has(cmd)).map(([, pkg]) => pkg);
	if (!missing.length) return;
	if (!has('apt-get')) {
		console.error(`Missing ${missing.join(', ')} and no apt-get to install it: install it with your package manager.`);
		process.exit(1);
	}
	const sudo = process.getuid && process.getuid() !== 0 ? ['sudo'] : [];
	const apt = (args) => (sudo.length ? run('sudo', ['apt-get', ...args]) : run('apt-get', args));
	apt(['update', '-qq']);
	apt(['install', '-y', '-qq', '--no-install-recommends', ...missing]);
}

module.exports = { root, run, ensureDependencies, ensureSystemPackages };
