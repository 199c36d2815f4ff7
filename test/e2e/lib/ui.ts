/**
 * The n8n editor for people and for headless Chromium: the owner account set up through n8n's
 * REST API (`POST /rest/owner/setup`), logging in, and launching Debian's Chromium with
 * playwright-core.
 */
import type { Browser } from 'playwright-core';

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
