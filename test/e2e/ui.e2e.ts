/**
 * The package in n8n's editor, in headless Chromium (Debian's `chromium`, driven by
 * playwright-core): n8n serves the package's node and credential types, the owner account is set
 * up through the REST API, and the node panel (node creator) lists every node package.json
 * declares when searched. The panel is saved as docs/node-panel.png.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';

import type { Browser, Page } from 'playwright-core';

import { ensureChromium, N8N_VERSION } from './lib/install';
import { N8n } from './lib/n8n';
import { installIntoNodesFolder } from './lib/package';
import { PROJECT_ROOT } from './lib/sandbox';
import { requireContext, skipAll } from './lib/stack';
import { launchChromium, setupOwner } from './lib/ui';
import { packageManifest, PACKAGE_NAME } from './lib/workflows';

export const SCREENSHOT = path.join(PROJECT_ROOT, 'docs', 'node-panel.png');

const manifest = packageManifest();
const chromium = ensureChromium((line) => process.stderr.write(`[e2e] ${line}\n`));

let n8n: N8n | undefined;
let browser: Browser | undefined;
let page: Page;
let cookie: string;
/** node type -> display name, as n8n serves them to the editor */
const displayNames = new Map<string, string>();

/**
 * The names the node panel lists, once it shows a list that is (`equal`) or is not (`differ`)
 * the given one and has stayed the same for three rendered frames (the panel applies a search a
 * moment after the input, and renders the results over a few frames).
 */
async function panelList(mode: 'equal' | 'differ', reference: string[], what: string): Promise<string[]> {
	const handle = await page.waitForFunction(
		({ mode, reference }) => {
			const state = ((window as unknown as { __panelWait?: { last: string; same: number } }).__panelWait ??= { last: '', same: 0 });
			const listed = Array.from(document.querySelectorAll('[data-test-id="node-creator"] [data-test-id="node-creator-item-name"]')).map((e) =>
				((e as HTMLElement).innerText ?? '').trim(),
			);
			const now = JSON.stringify(listed);
			const accepted = listed.length > 0 && (mode === 'equal') === (now === JSON.stringify(reference));
			state.same = accepted && now === state.last ? state.same + 1 : 0;
			state.last = now;
			if (state.same < 3) return false;
			delete (window as unknown as { __panelWait?: unknown }).__panelWait;
			return listed;
		},
		{ mode, reference },
		{ polling: 'raf', timeout: 60_000 },
	).catch((error: Error) => {
		throw new Error(`the node panel did not show ${what}: ${error.message}`);
	});
	return (await handle.jsonValue()) as string[];
}

let unfiltered: string[] | undefined;

async function searchPanel(term: string): Promise<string[]> {
	const input = page.locator('[data-test-id="node-creator-search-bar"]');
	// The list without a search, seen once; each search starts from it, so that its results can
	// be told apart from those of the search before.
	unfiltered ??= await panelList('differ', [], 'its first list');
	await input.fill('');
	await panelList('equal', unfiltered, 'the list without a search');
	await input.fill(term);
	return await panelList('differ', unfiltered, `results for "${term}"`);
}

/** The panel, cut just below the lowest of the given nodes. */
async function panelShot(names: string[]): Promise<Buffer> {
	const panel = (await page.locator('[data-test-id="node-creator"]').boundingBox())!;
	let bottom = panel.y;
	for (const name of names) {
		const label = page
			.locator('[data-test-id="node-creator"] [data-test-id="node-creator-item-name"]')
			.filter({ hasText: name })
			.first();
		const item = label.locator('xpath=ancestor::*[@data-test-id="item-iterator-item"][1]');
		const box = (await item.count()) ? await item.boundingBox() : await label.boundingBox();
		if (box) bottom = Math.max(bottom, box.y + box.height + 16);
	}
	return await page.screenshot({
		clip: {
			x: panel.x,
			y: panel.y,
			width: panel.width,
			height: Math.min(bottom, panel.y + panel.height) - panel.y,
		},
	});
}

if (!chromium.path) skipAll('n8n editor in headless Chromium', chromium.reason ?? 'chromium is not available');
else {
	beforeAll(async () => {
		const { install, pkg } = requireContext();
		n8n = await N8n.create({ install, port: 15688 });
		installIntoNodesFolder(pkg, n8n.nodesDir, n8n.env());
		await n8n.start();
		browser = await launchChromium(chromium.path!);
	}, 300_000);

	afterAll(async () => {
		await browser?.close();
		await n8n?.dispose();
	});

	describe(`the package in the n8n ${N8N_VERSION} editor (headless Chromium)`, () => {
		it('the owner account is set up with POST /rest/owner/setup and the login works', async () => {
			cookie = await setupOwner(n8n!.baseUrl);
			expect(cookie).toMatch(/^n8n-auth=/);
		});

		it(`n8n serves the packed package's ${manifest.nodes.length} node types as ${PACKAGE_NAME}.<name> and its ${manifest.credentials.length} credential types`, async () => {
			const get = async (route: string): Promise<Array<{ name: string; displayName: string }>> => {
				// A kept-alive connection n8n closed while idle fails on reuse ("other side closed");
				// such a request never reached n8n, so it is sent once more on a new connection.
				const send = async () => await fetch(`${n8n!.baseUrl}${route}`, { headers: { cookie } });
				const res = await send().catch(async (error: Error & { cause?: { code?: string } }) => {
					if (error.cause?.code !== 'UND_ERR_SOCKET') throw error;
					return await send();
				});
				expect(res.status).toBe(200);
				return (await res.json()) as Array<{ name: string; displayName: string }>;
			};
			const nodes = await get('/types/nodes.json');
			for (const name of manifest.nodes) {
				const type = nodes.find((n) => n.name === `${PACKAGE_NAME}.${name}`);
				expect([name, type?.displayName ? 'served' : 'missing']).toEqual([name, 'served']);
				displayNames.set(name, type!.displayName);
			}
			const credentials = await get('/types/credentials.json');
			for (const name of manifest.credentials)
				expect(credentials.map((c) => c.name)).toContain(name);
		});

		it(`the node panel lists every node of package.json (${manifest.nodes.join(', ')}) when searched; saved as docs/node-panel.png`, async () => {
			expect(displayNames.size).toBe(manifest.nodes.length);
			const [host, port] = [new URL(n8n!.baseUrl).hostname, new URL(n8n!.baseUrl).port];
			const context = await browser!.newContext({
				viewport: { width: 1280, height: 760 },
				deviceScaleFactor: 1,
			});
			await context.addCookies([
				{ name: 'n8n-auth', value: cookie.slice('n8n-auth='.length), domain: host, path: '/' },
			]);
			page = await context.newPage();
			await page.goto(`http://${host}:${port}/workflow/new`);
			await page.locator('[data-test-id="node-creator-plus-button"]').click({ timeout: 60_000 });
			await page.locator('[data-test-id="node-creator-search-bar"]').waitFor();

			// A trigger whose node (its type name without "Trigger") has actions is listed inside that
			// node's entry, as n8n folds them: Bank File Trigger in Bank File, EBICS Trigger in EBICS,
			// Bank SFTP Trigger in Bank SFTP (editor.e2e.ts adds the first two from there).
			const folded = manifest.nodes
				.filter((n) => n.endsWith('Trigger') && manifest.nodes.includes(n.replace(/Trigger$/, '')))
				.map((n) => displayNames.get(n)!);
			expect(folded.sort()).toEqual(['Bank File Trigger', 'Bank SFTP Trigger', 'EBICS Trigger']);
			// A few searches a person would type, then each node still missing by its own name.
			const wanted = [...displayNames.values()].filter((name) => !folded.includes(name));
			const found = new Set<string>();
			const shots: Array<{ term: string; png: Buffer; names: string[] }> = [];
			for (const term of ['bank', 'FX Trade', 'Corporate', ...wanted]) {
				if (found.size === wanted.length) break;
				const listed = await searchPanel(term);
				// Each node by its own name (the folded triggers inside their node's entry).
				const ours = wanted.filter((name) => listed.includes(name) && !found.has(name));
				if (!ours.length) continue;
				ours.forEach((name) => found.add(name));
				shots.push({ term, png: await panelShot(ours), names: ours });
			}
			expect([...found].sort()).toEqual([...wanted].sort());

			mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
			if (shots.length === 1) {
				await page.screenshot({ path: SCREENSHOT });
			} else {
				// the searches side by side, each cut to its results
				const html = `<html><body style="margin:0;background:#f2f2f2"><div id="shots" style="display:inline-flex;gap:16px;margin:16px;align-items:flex-start">${shots
					.map(
						(s) =>
							`<div style="background:#fff;border:1px solid #ddd"><img style="display:block" src="data:image/png;base64,${s.png.toString('base64')}"></div>`,
					)
					.join('')}</div></body></html>`;
				const composite = await context.newPage();
				await composite.setViewportSize({ width: 440 * shots.length + 32, height: 1000 });
				await composite.setContent(html);
				const box = (await composite.locator('#shots').boundingBox())!;
				await composite.screenshot({
					path: SCREENSHOT,
					clip: { x: 0, y: 0, width: box.x + box.width + 16, height: box.y + box.height + 16 },
				});
			}
			await context.close();
			process.stderr.write(
				`[e2e] node panel: ${shots.map((s) => `"${s.term}" -> ${s.names.join(', ')}`).join('; ')}; saved ${path.relative(PROJECT_ROOT, SCREENSHOT)}\n`,
			);
		});
	});
}
