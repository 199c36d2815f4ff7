import https from 'node:https';

/**
 * Collects garbage when the process runs with --expose-gc (npm run bench does), so that each
 * measured run starts from a clean heap instead of paying for the garbage of the run before.
 */
export function collectGarbage(): void {
	(globalThis as { gc?: () => void }).gc?.();
}

/** Wall time of an async function in seconds. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ seconds: number; value: T }> {
	const start = process.hrtime.bigint();
	const value = await fn();
	return { seconds: Number(process.hrtime.bigint() - start) / 1e9, value };
}

export function median(values: number[]): number {
	const s = [...values].sort((a, b) => a - b);
	const mid = Math.floor(s.length / 2);
	return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * The Node.js that runs every process a benchmark starts (the measured clients and the banks):
 * `BENCH_NODE=/path/to/node`, or `BENCH_NODE=self` for the one running the benchmarks. `npm run
 * bench` sets it to Node 24, the Node.js n8n needs (bench/run.ts).
 */
export function benchNode(): string {
	const chosen = process.env.BENCH_NODE;
	return chosen && chosen !== 'self' ? chosen : process.execPath;
}

export const round = (n: number, digits = 3): number => Number(n.toFixed(digits));

/** A plain HTTPS JSON request with a keep-alive agent: what a hand-written client would do. */
export async function plainJson<T>(
	agent: https.Agent,
	url: string,
	options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: T }> {
	return await new Promise((resolve, reject) => {
		const req = https.request(url, { method: options.method ?? 'GET', headers: options.headers, agent }, (res) => {
			const chunks: Buffer[] = [];
			res.on('data', (c: Buffer) => chunks.push(c));
			res.on('end', () => {
				const text = Buffer.concat(chunks).toString('utf8');
				resolve({ status: res.statusCode ?? 0, body: (text ? JSON.parse(text) : undefined) as T });
			});
			res.on('error', reject);
		});
		req.on('error', reject);
		req.end(options.body);
	});
}
