/**
 * Build pipeline after `tsc` has type-checked the sources:
 * - bundles every node and credential listed in package.json's `n8n` section into one CommonJS
 *   file each (runtime libraries such as fast-xml-parser, jose and xml-crypto go inside, so the
 *   published package has no runtime dependencies; n8n-workflow stays external),
 * - copies icons and codex (.node.json) files next to the bundles.
 */
const { src, dest, series, parallel } = require('gulp');
const path = require('node:path');
const fs = require('node:fs');
const esbuild = require('esbuild');

const pkg = require('./package.json');
const DIST = path.join(__dirname, 'dist');

function entries() {
	const list = [...pkg.n8n.nodes, ...pkg.n8n.credentials];
	return list.map((out) => {
		const rel = path.relative('dist', out).replace(/\.js$/, '.ts');
		const source = path.join(__dirname, rel);
		if (!fs.existsSync(source)) throw new Error(`package.json lists ${out} but ${rel} does not exist`);
		return { source, out: path.join(__dirname, out) };
	});
}

async function clean() {
	await fs.promises.rm(DIST, { recursive: true, force: true });
}

async function bundle() {
	await Promise.all(
		entries().map(({ source, out }) =>
			esbuild.build({
				entryPoints: [source],
				outfile: out,
				bundle: true,
				platform: 'node',
				target: 'node20',
				format: 'cjs',
				external: ['n8n-workflow'],
				legalComments: 'none',
				logLevel: 'warning',
			}),
		),
	);
}

function icons() {
	return src(['icons/**/*.svg', 'icons/**/*.png'], { encoding: false }).pipe(dest('dist/icons'));
}

function nodeAssets() {
	return src(['nodes/**/*.svg', 'nodes/**/*.png', 'nodes/**/*.node.json'], { encoding: false, base: '.' }).pipe(dest('dist'));
}

exports.clean = clean;
exports.build = series(clean, parallel(bundle, icons, nodeAssets));
exports.default = exports.build;
