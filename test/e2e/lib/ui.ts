/**
 * The n8n editor for people and for headless Chromium: the owner account set up through n8n's
 * REST API (`POST /rest/owner/setup`), logging in, and launching Debian's Chromium with
 * playwright-core.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';

/** The owner of a local, throwaway n8n (sandbox demo and tests only). */
export const DEMO_OWNER = {
	email: 'demo@corporate-banking.localhost',
	firstName: 'Sandbox',
	lastName: 'Treasurer',
	password: 'SandboxDemo1',
};

export const CHROMIUM_ARGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];

async function post(
	url: string,
	body: unknown,
	cookie?: string,
): Promise<{ status: number; text: string; cookie?: string }> {
	const res = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
		body: JSON.stringify(body),
	});
	const setCookie = res.headers.get('set-cookie') ?? undefined;
	return { status: res.status, text: await res.text(), cookie: setCookie?.split(';')[0] };
}

/**
 * Creates the owner account of a fresh n8n (no-op when an owner exists and the login works).
 * Returns the session cookie (`n8n-auth=...`).
 */
export async function setupOwner(baseUrl: string, owner = DEMO_OWNER): Promise<string> {
	const setup = await post(`${baseUrl}/rest/owner/setup`, owner);
	if (setup.status !== 200) {
		const session = await login(baseUrl, owner).catch(() => undefined);
		if (session) return session;
		throw new Error(`POST /rest/owner/setup answered ${setup.status}: ${setup.text.slice(0, 300)}`);
	}
	return await login(baseUrl, owner);
}

export async function login(baseUrl: string, owner = DEMO_OWNER): Promise<string> {
	const res = await post(`${baseUrl}/rest/login`, {
		emailOrLdapLoginId: owner.email,
		password: owner.password,
	});
	if (res.status !== 200 || !res.cookie)
		throw new Error(`POST /rest/login answered ${res.status}: ${res.text.slice(0, 300)}`);
	return res.cookie;
}

export async function launchChromium(executablePath: string): Promise<Browser> {
	const { chromium } = await import('playwright-core');
	return await chromium.launch({ executablePath, args: CHROMIUM_ARGS, headless: true });
}

/**
 * A browser context signed in to n8n as the owner (`cookie` from setupOwner), with generous waits
 * (the machine may be busy; every wait is for something to appear) and n8n's form debounce off
 * (`debounce: false`), so that a click right after typing sees every character.
 */
export async function signedInContext(
	browser: Browser,
	baseUrl: string,
	cookie: string,
	options: { viewport?: { width: number; height: number }; debounce?: boolean } = {},
): Promise<BrowserContext> {
	const context = await browser.newContext({ viewport: options.viewport ?? { width: 1440, height: 1000 }, deviceScaleFactor: 1 });
	const { hostname } = new URL(baseUrl);
	await context.addCookies([{ name: 'n8n-auth', value: cookie.slice('n8n-auth='.length), domain: hostname, path: '/' }]);
	context.setDefaultTimeout(180_000);
	// n8n's editor takes a typed value into its form 100 ms after the last key; its own switch for
	// tests (N8N_DEBOUNCE_MULTIPLIER) makes that the next moment, as a person's slower click sees it.
	if (options.debounce === false) await context.addInitScript(() => sessionStorage.setItem('N8N_DEBOUNCE_MULTIPLIER', '0'));
	return context;
}

/** Headless Chromium with one page signed in to n8n as its owner (set up now), debounce off. */
export async function openEditor(
	baseUrl: string,
	executablePath: string,
): Promise<{ cookie: string; browser: Browser; context: BrowserContext; page: Page }> {
	const cookie = await setupOwner(baseUrl);
	const browser = await launchChromium(executablePath);
	const context = await signedInContext(browser, baseUrl, cookie, { debounce: false });
	return { cookie, browser, context, page: await context.newPage() };
}
