/**
 * What a person does in n8n's editor, for the browser tests: fields found by their parameter
 * name, values typed key by key (cleared first, left with Tab or Enter), options chosen by their
 * label, the node panel of a new workflow searched, a step executed and its output read. Every
 * wait is for something the editor shows or sends (a saved workflow, a marker, a text).
 */
import type { Locator, Page } from 'playwright-core';

import type { StoredExecution } from './n8n';

export const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The input (or text area) of a parameter, in the page or in a part of it (a dialog, the panel). */
export function parameterInput(scope: Page | Locator, name: string): Locator {
	return scope
		.locator(`[data-test-id="parameter-input-${name}"]`)
		.locator('input:not([type="hidden"]), textarea')
		.first();
}

/** The warning sign n8n shows beside a required field while it is empty. */
export function emptyMarker(page: Page, name: string): Locator {
	return page
		.locator('[data-test-id="parameter-item"]')
		.filter({ has: page.locator(`[data-test-id="parameter-input-${name}"]`) })
		.locator('[data-test-id="parameter-issues"]')
		.first();
}

/**
 * The editor saving the workflow with a parameter at a value: n8n takes a typed value into the
 * workflow a moment after the keys, and saves it; once saved, a run uses it.
 */
export function savedWith(page: Page, name: string, value: string): Promise<unknown> {
	const needle = `"${name}":${JSON.stringify(value)}`;
	return page.waitForRequest(
		(request) =>
			/\/rest\/workflows\//.test(request.url()) &&
			request.method() !== 'GET' &&
			(request.postData() ?? '').includes(needle),
	);
}

/**
 * Clicks into an input, clears it and types the text key by key (or pastes it), as a person does;
 * then leaves it with `leave` (Tab, or Enter to confirm a date picker).
 */
export async function retype(
	input: Locator,
	text: string,
	how: { paste?: boolean; leave?: 'Tab' | 'Enter' } = {},
): Promise<void> {
	await input.click();
	await input.press('ControlOrMeta+a');
	await input.press('Backspace');
	if (how.paste) await input.fill(text);
	else if (text) await input.pressSequentially(text);
	if (how.leave) await input.press(how.leave);
}

/**
 * Clears a field and types the text key by key, as a person does; leaves the field once saved
 * (`saved`: the value the workflow is saved with, when n8n stores it otherwise than typed).
 */
export async function typeInto(page: Page, name: string, text: string, saved = text): Promise<void> {
	// n8n leaves an emptied parameter out of what it saves; the field's empty marker says it took it.
	const done = saved ? savedWith(page, name, saved) : emptyMarker(page, name).waitFor();
	await retype(parameterInput(page, name), text, { leave: 'Tab' });
	await done;
}

/** Types a date into a date field key by key and confirms it with Enter, as a person does. */
export async function typeDate(page: Page, name: string, date: string): Promise<void> {
	const saved = savedWith(page, name, date);
	await retype(parameterInput(page, name), date, { leave: 'Enter' });
	await saved;
}

/** Opens an options field and picks the option whose label starts with `option`. */
export async function choose(page: Page, name: string, option: string): Promise<void> {
	await page.locator(`[data-test-id="parameter-input-${name}"]`).click();
	// An option's accessible name is its label followed by its description: the label ends there.
	await page
		.getByRole('option', { name: new RegExp(`^${escapeRegExp(option)}(?!\\w)`) })
		.first()
		.click();
}

/**
 * Goes to a page of the editor (`route`: its path, such as /workflow/<id>/<node id> or
 * /home/credentials/<id>). Once the editor is loaded it moves the way its own links do, through
 * its router, without loading the page again: a load costs the whole editor bundle, seconds on a
 * busy machine. A workflow left with changes not saved is left without saving them, as a person
 * who has what they came for does; the workflow on screen is read again, as saved and with no run
 * shown, as a load gives it. A workflow's route ends once that workflow is on the canvas, and a
 * node's route then opens its panel (the editor opens a panel only for a node it shows).
 */
export async function goTo(page: Page, baseUrl: string, route: string): Promise<void> {
	const loaded =
		page.url().startsWith(baseUrl) &&
		(await page.evaluate(() =>
			Boolean((document.querySelector('#app') as { __vue_app__?: unknown } | null)?.__vue_app__),
		));
	if (!loaded) {
		await page.goto(`${baseUrl}${route}`, { waitUntil: 'commit' });
		return;
	}
	// The same page or workflow again is opened again (a workflow read as saved, with no run
	// shown), as a load gives it.
	const here = new URL(page.url()).pathname;
	const workflow = /^\/workflow\/([^/]+)/.exec(route)?.[1];
	if (here === route || (workflow && here.startsWith(`/workflow/${workflow}`)))
		await routerPush(page, '/home/workflows');
	if (workflow && workflow !== 'new') {
		await routerPush(page, `/workflow/${workflow}`);
		// That workflow on the canvas: its nodes' handles carry the workflow's id.
		await page
			.locator(`.vue-flow__handle[data-id^="${workflow}-"]`)
			.first()
			.waitFor({ state: 'attached' });
	}
	if (route !== `/workflow/${workflow}`) await routerPush(page, route);
}

/** The editor's router moved to `route` (its navigation ended), past its "Save changes before leaving?" question. */
async function routerPush(page: Page, route: string): Promise<void> {
	await page.evaluate((to) => {
		type Router = { push(to: string): Promise<unknown> };
		const app = (
			document.querySelector('#app') as unknown as {
				__vue_app__: { config: { globalProperties: { $router: Router } } };
			}
		).__vue_app__;
		const state = window as unknown as { corporateBankingNavigation?: string };
		state.corporateBankingNavigation = undefined;
		app.config.globalProperties.$router.push(to).then(
			() => (state.corporateBankingNavigation = 'done'),
			(error: unknown) => (state.corporateBankingNavigation = String(error)),
		);
	}, route);
	const ended = 'window.corporateBankingNavigation !== undefined';
	const asked =
		"Array.from(document.querySelectorAll('button')).some((b) => b.textContent.trim() === 'Leave without saving')";
	await page.waitForFunction(`${ended} || ${asked}`);
	const leave = page.getByRole('button', { name: 'Leave without saving' });
	if (await leave.isVisible()) await leave.click();
	await page.waitForFunction(ended);
}

/** The node panel (node creator) of a new, empty workflow, searched as typed. */
export async function searchNewWorkflow(page: Page, baseUrl: string, term: string): Promise<void> {
	await page.goto(`${baseUrl}/workflow/new`, { waitUntil: 'commit' });
	await page.locator('[data-test-id="node-creator-plus-button"]').click();
	await page.locator('[data-test-id="node-creator-search-bar"]').pressSequentially(term);
}

/** A node entry of the node panel by its exact name. */
export function panelEntry(page: Page, name: string): Locator {
	return page
		.locator('[data-test-id="node-creator"] [data-test-id="item-iterator-item"]')
		.filter({
			has: page.locator('[data-test-id="node-creator-item-name"]').getByText(name, { exact: true }),
		});
}

/** "Execute step" (or a trigger's "Fetch Test Event") in the open node panel. */
export async function executeStep(page: Page): Promise<void> {
	await page.locator('[data-test-id="ndv"] [data-test-id="node-execute-button"]').first().click();
}

export function outputPane(page: Page): Locator {
	return page.locator('[data-test-id="output-panel"]');
}

/** Waits until the output pane shows the text. */
export async function seeInOutput(page: Page, text: string | RegExp): Promise<void> {
	await outputPane(page).getByText(text).first().waitFor();
}

/** The credential dialog on screen (one the editor closed may stay in the page, hidden). */
export function credentialDialog(page: Page): Locator {
	return page.locator('[data-test-id="credential-edit-dialog"]:visible').first();
}

/** The form entry (label and input) of a credential field in the dialog on screen. */
export function credentialEntry(page: Page, name: string): Locator {
	return credentialDialog(page)
		.locator('[data-test-id="credential-connection-parameter"]')
		.filter({ has: page.locator(`[data-test-id="parameter-input-${name}"]`) })
		.first();
}

/**
 * "Execute workflow" on the canvas of the open workflow; resolves with the execution n8n saved
 * (`executions` lists the workflow's saved executions). `onTimeout` runs before the error when
 * none is saved within 3 minutes (a picture of the page, say).
 */
export async function runFromCanvas(page: Page, executions: () => StoredExecution[], onTimeout?: () => Promise<void>): Promise<StoredExecution> {
	const before = executions().length;
	await page.locator('[data-test-id="execute-workflow-button"]').click();
	const deadline = Date.now() + 180_000;
	for (;;) {
		const done = executions().slice(before).find((e) => e.finished || e.status === 'success' || e.status === 'error');
		if (done) return done;
		if (Date.now() > deadline) {
			await onTimeout?.();
			throw new Error('no run of the workflow was saved');
		}
		await page.waitForTimeout(250);
	}
}
