/**
 * Build pipeline after `tsc` has type-checked the sources:
 * - compiles the project's own TypeScript module by module into CommonJS under dist/ (the way
 *   n8n's own packages are built), so every node and credential loaded by one process shares one
 *   instance of the shared code (the transport's token memo, connection pools, TLS context cache),
 * - bundles the third-party runtime libraries (fast-xml-parser, jose, xml-crypto, luxon,
 *   @xmldom/xmldom, ...) once into dist/vendor.js and points the compiled modules' `require`s of
 *   those libraries at it by relative path, so the published package has no runtime dependencies
 *   (n8n-workflow stays a peer, Node built-ins stay as they are),
 * - copies icons and codex (.node.json) files next to the compiled modules.
 */
const { src, dest, series, parallel } = require('gulp');
const path = require('node:path');
const fs = require('node:fs');
const { builtinModules } = require('node:module');
const { spawnSync } = require('node:child_process');
const esbuild = require('esbuild');

const pkg = require('./package.json');
const DIST = path.join(__dirname, 'dist');
const VENDOR = path.join(DIST, 'vendor.js');
/** Modules the compiled code may require as they are: the peer and Node's built-ins. */
const PROVIDED = new Set(['n8n-workflow', ...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
/** `require("name")` as tsc emits it for a CommonJS target. */
const REQUIRE = /\brequire\("([^"]+)"\)/g;

function checkEntries() {
	for (const out of [...pkg.n8n.nodes, ...pkg.n8n.credentials]) {
		const rel = path.relative('dist', out).replace(/\.js$/, '.ts');
		if (!fs.existsSync(path.join(__dirname, rel))) throw new Error(`package.json lists ${out} but ${rel} does not exist`);
	}
}

async function clean() {
	await fs.promises.rm(DIST, { recursive: true, force: true });
}

/** tsc with tsconfig.build.json: one CommonJS file per source file, same folders under dist/. */
async function compile() {
	checkEntries();
	const tsc = require.resolve('typescript/bin/tsc');
	const res = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: __dirname, stdio: 'inherit' });
	if (res.status !== 0) throw new Error(`tsc failed (exit ${res.status ?? res.signal})`);
}

function compiledFiles(dir = DIST) {
	return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
		const full = path.join(dir, e.name);
		if (e.isDirectory()) return compiledFiles(full);
		return e.name.endsWith('.js') && full !== VENDOR ? [full] : [];
	});
}

/** A bare module name's package: `@scope/name/sub` -> `@scope/name`, `name/sub` -> `name`. */
function packageOf(spec) {
	const parts = spec.split('/');
	return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/**
 * What of ssh2 the package never uses is left out of the bundle, so that dist/ holds no native file
 * and nothing that starts a process:
 * - its optional native parts (cpu-features, its crypto binding sshcrypto.node): ssh2 requires them
 *   inside try/catch and uses its JavaScript code without them; each becomes a module that throws
 *   as a missing module does;
 * - `child_process` in its agent module (Pageant and Cygwin SSH agents on Windows; the package never
 *   passes an agent): functions that throw;
 * - the `new Function` probe of BigInt syntax in node-fs-compat.js: Node 20 has BigInt, so the
 *   probe's value is written as it is.
 */
const withoutUnusedSsh2Parts = {
	name: 'without-unused-ssh2-parts',
	setup(build) {
		build.onResolve({ filter: /^cpu-features$|sshcrypto\.node$/ }, (args) => ({ path: args.path, namespace: 'left-out' }));
		build.onLoad({ filter: /.*/, namespace: 'left-out' }, (args) => ({
			contents: `throw Object.assign(new Error(${JSON.stringify(`Cannot find module ${args.path} (left out of the bundle)`)}), { code: 'MODULE_NOT_FOUND' });`,
			loader: 'js',
		}));
		build.onResolve({ filter: /^child_process$/ }, (args) =>
			/[\\/]ssh2[\\/]lib[\\/]agent\.js$/.test(args.importer) ? { path: 'child_process', namespace: 'no-processes' } : undefined,
		);
		build.onLoad({ filter: /.*/, namespace: 'no-processes' }, () => ({
			contents:
				"const refuse = () => { throw new Error('SSH agents that start a process are left out of this package'); };\nmodule.exports = { execFile: refuse, spawn: refuse };",
			loader: 'js',
		}));
		build.onLoad({ filter: /[\\/]ssh2[\\/]lib[\\/]protocol[\\/]node-fs-compat\.js$/ }, async (args) => {
			const source = await fs.promises.readFile(args.path, 'utf8');
			const probe = "new Function('return 2n ** 32n')()";
			if (!source.includes(probe)) throw new Error(`${args.path}: the BigInt probe to replace is not there any more`);
			return { contents: source.replace(probe, '2n ** 32n'), loader: 'js' };
		});
	},
};

/**
 * Bundles every third-party module the compiled code requires into dist/vendor.js (an object
 * keyed by the module name as written in the source) and rewrites those requires to it.
 */
async function vendor() {
	const files = compiledFiles();
	const libraries = new Set();
	for (const file of files) {
		for (const [, spec] of fs.readFileSync(file, 'utf8').matchAll(REQUIRE)) {
			if (!spec.startsWith('.') && !PROVIDED.has(spec)) libraries.add(spec);
		}
	}
	for (const spec of libraries) {
		if (pkg.dependencies?.[packageOf(spec)]) throw new Error(`${spec} must not be a runtime dependency`);
	}
	const names = [...libraries].sort();
	const entry = names.map((n) => `\t${JSON.stringify(n)}: require(${JSON.stringify(n)}),`).join('\n');
	await esbuild.build({
		stdin: { contents: `module.exports = {\n${entry}\n};\n`, resolveDir: __dirname, sourcefile: 'vendor.js', loader: 'js' },
		outfile: VENDOR,
		bundle: true,
		platform: 'node',
		target: 'node20',
		format: 'cjs',
		external: ['n8n-workflow'],
		plugins: [withoutUnusedSsh2Parts],
		legalComments: 'none',
		logLevel: 'warning',
	});
	for (const file of files) {
		const code = fs.readFileSync(file, 'utf8');
		let rel = path.relative(path.dirname(file), VENDOR).split(path.sep).join('/');
		if (!rel.startsWith('.')) rel = `./${rel}`;
		const rewritten = code.replace(REQUIRE, (whole, spec) =>
			libraries.has(spec) ? `require(${JSON.stringify(rel)})[${JSON.stringify(spec)}]` : whole,
		);
		if (rewritten !== code) fs.writeFileSync(file, rewritten);
	}
}

function icons() {
	return src(['icons/**/*.svg', 'icons/**/*.png'], { encoding: false }).pipe(dest('dist/icons'));
}

function nodeAssets() {
	return src(['nodes/**/*.svg', 'nodes/**/*.png', 'nodes/**/*.node.json', 'nodes/**/*.xsd'], { encoding: false, base: '.' }).pipe(dest('dist'));
}

/**
 * The files a bundled library loads at run time from beside itself (dist/vendor.js): xmllint-wasm
 * runs libxml2's schema validation in a worker thread started from xmllint-node.js, which loads
 * xmllint.wasm.
 */
function vendorFiles() {
	const dir = path.dirname(require.resolve('xmllint-wasm/package.json'));
	return src([path.join(dir, 'xmllint-node.js'), path.join(dir, 'xmllint.wasm')], { encoding: false }).pipe(dest('dist'));
}

exports.clean = clean;
exports.build = series(clean, parallel(series(compile, vendor), icons, nodeAssets, vendorFiles));
exports.default = exports.build;
