/**
 * Writes the n8n versions the package is proven in (test/e2e/n8n-versions.json) as step outputs:
 * newest, oldest, node, and for the cache keys newest-spec and oldest-spec, a short hash of what
 * each version is installed with (a changed override installs it again).
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const versions = require(path.join(__dirname, '../test/e2e/n8n-versions.json'));
const spec = (version) =>
	crypto
		.createHash('sha256')
		.update(JSON.stringify({ node: versions.node, install: versions.installs[version] ?? {} }))
		.digest('hex')
		.slice(0, 12);
const lines = [
	`newest=${versions.newest}`,
	`oldest=${versions.oldest}`,
	`node=${versions.node}`,
	`newest-spec=${spec(versions.newest)}`,
	`oldest-spec=${spec(versions.oldest)}`,
];
if (process.env.GITHUB_OUTPUT) fs.appendFileSync(process.env.GITHUB_OUTPUT, `${lines.join('\n')}\n`);
console.log(lines.join('\n'));
