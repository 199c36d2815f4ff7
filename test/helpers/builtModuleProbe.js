/**
 * Loads every node and credential file of the BUILT package (dist/) in one plain Node process, the
 * way n8n loads them, and prints as JSON what they share:
 * - for each file, which module instances of its require graph hold the token memo (export
 *   `forgetToken`) and the connection pool (export `closePooledConnections`), and which vendor file,
 * - a token round trip: a credential's preAuthentication stores a token in the memo, the memo is
 *   reused by a second preAuthentication, `forgetToken` called through the module a NODE requires
 *   (as the node does on a 401) makes the credential ask the bank again.
 * Token requests go through the fake `helpers.httpRequest` (a proxy is set so the transport does
 * not use its own pooled connections), which counts them. Usage: node builtModuleProbe.js <root>
 */
const path = require('node:path');

process.env.HTTPS_PROXY = 'http://127.0.0.1:9';

const root = path.resolve(process.argv[2] ?? path.join(__dirname, '../..'));
const pkg = require(path.join(root, 'package.json'));
const listed = [...pkg.n8n.nodes, ...pkg.n8n.credentials];

const dist = path.join(root, 'dist') + path.sep;

/**
 * Every module reachable from `mod` through require (Node records cached children too), not
 * looking inside modules from outside dist/ (n8n-workflow's own dependencies are its business).
 */
function graph(mod, seen = new Set()) {
	if (seen.has(mod)) return seen;
	seen.add(mod);
	if (mod.filename.startsWith(dist)) for (const child of mod.children) graph(child, seen);
	return seen;
}

const ids = new Map();
const idOf = (mod) => {
	if (!ids.has(mod)) ids.set(mod, `${ids.size}:${path.relative(root, mod.filename)}`);
	return ids.get(mod);
};

async function main() {
	const files = {};
	for (const file of listed) {
		const full = path.join(root, file);
		require(full);
		const mods = [...graph(require.cache[full])];
		files[file] = {
			memo: mods.filter((m) => m !== require.cache[full] && typeof m.exports.forgetToken === 'function').map(idOf),
			pool: mods.filter((m) => m !== require.cache[full] && typeof m.exports.closePooledConnections === 'function').map(idOf),
			vendor: mods.filter((m) => /vendor/.test(path.basename(m.filename))).map(idOf),
			external: mods.filter((m) => !m.filename.startsWith(dist)).map((m) => path.relative(root, m.filename)),
		};
	}

	let tokenRequests = 0;
	const helpers = {
		httpRequest: async () => {
			tokenRequests += 1;
			return JSON.stringify({ access_token: `token-${tokenRequests}`, token_type: 'Bearer', expires_in: 3600 });
		},
	};
	const credFile = pkg.n8n.credentials.find((c) => c.includes('ClientCredentials'));
	const Cred = Object.values(require(path.join(root, credFile)))[0];
	const credential = new Cred();
	const data = { environment: 'custom', tokenUrl: 'https://bank.example/oauth2/token', reportBaseUrl: 'https://bank.example/r', executionBaseUrl: 'https://bank.example/e', clientId: 'probe-client', scope: 'accounts' };
	const pre = async (accessToken) => (await credential.preAuthentication.call({ helpers }, { ...data, accessToken })).accessToken;
	const first = await pre('');
	const afterFirst = tokenRequests;
	const reused = await pre('');
	const afterReuse = tokenRequests;
	const nodeFile = pkg.n8n.nodes.find((n) => n.includes('FxTradeReport'));
	const nodeMemo = [...graph(require.cache[path.join(root, nodeFile)])].find((m) => typeof m.exports.forgetToken === 'function');
	let renewed;
	if (nodeMemo) {
		nodeMemo.exports.forgetToken(first);
		renewed = await pre('');
	}
	process.stdout.write(
		JSON.stringify({ files, token: { first, afterFirst, reused, afterReuse, nodeHasMemo: !!nodeMemo, renewed, afterForget: tokenRequests } }),
	);
}

main().catch((error) => {
	process.stderr.write(String(error?.stack ?? error));
	process.exit(1);
});
