/** Removes what the global set-up left in the temporary folder (context file, packed tarball). */
import { rmSync } from 'node:fs';
import path from 'node:path';

import { loadContext } from './lib/stack';

export default function globalTeardown(): void {
	const file = process.env.CORPORATE_BANKING_E2E_CONTEXT;
	if (!file) return;
	const ctx = loadContext();
	if (ctx.pkg) rmSync(path.dirname(ctx.pkg.tarball), { recursive: true, force: true });
	rmSync(path.dirname(file), { recursive: true, force: true });
}
