/**
 * fxReportReturnAll: 50,000 trades (500 pages of 100) from the sandbox bank through the FX Trade
 * Report node (a real engine run, Return All), against a plain keep-alive HTTPS loop over the same
 * pages in the same run. The sandbox runs in its own process. Reports the ratio of medians and the
 * token requests the node made.
 */
import https from 'node:https';

import { clearTokenMemo } from '../nodes/shared/transport/token';
import { createCredentialStore } from '../test/harness/engine';
import { CC } from '../test/helpers/bank';
import { NODE_NAME, runNode } from '../test/helpers/nodes';
import { collectGarbage, median, plainJson, round, timed } from './common';
import { startSandboxProcess } from './sandboxProcess';

const TRADES = 50_000;

export interface FxReportResult {
	trades: number;
	ratio: number;
	tokenRequests: number;
	nodeWallS: number;
	baselineWallS: number;
	pages: number;
}

interface Stats {
	tokenRequests: number;
	requests: Array<{ area: string }>;
}

export async function run(reps = 9): Promise<FxReportResult> {
	const bank = await startSandboxProcess(['--trades', String(TRADES), '--seed', '42']);
	try {
		const { urls, clients, credentials } = bank.state;
		const startDate = new Date(Date.now() - 3 * 365 * 86_400_000).toISOString().slice(0, 10);

		const baseline = async (): Promise<number> => {
			const agent = new https.Agent({ keepAlive: true, ca: bank.caPem });
			const token = await plainJson<{ access_token: string }>(agent, urls.token, {
				method: 'POST',
				headers: { 'content-type': 'application/x-www-form-urlencoded' },
				body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'accounts', client_id: clients.clientId }).toString(),
			});
			const headers = { authorization: `Bearer ${token.body.access_token}`, accept: 'application/json' };
			let url: string | null = `${urls.reportBase}/trade-reports?startDate=${startDate}&offset=0&limit=100`;
			// Keeps every trade, as the node does: a loop that returns the trades holds them all.
			const trades: unknown[] = [];
			while (url) {
				const page: { body: { items: unknown[]; next?: string | null } } = await plainJson(agent, url, { headers });
				for (const trade of page.body.items) trades.push(trade);
				url = page.body.next ? new URL(page.body.next, urls.base).toString() : null;
			}
			agent.destroy();
			return trades.length;
		};

		let tokenRequests = 0;
		/** One workflow run, timed alone: the sandbox's counters are read outside the measured time. */
		const node = async (): Promise<{ seconds: number; value: number }> => {
			clearTokenMemo();
			const before = (await bank.admin<Stats>('GET', '/stats')).tokenRequests;
			const store = createCredentialStore([{ id: 'cc', name: 'cc', type: CC, data: credentials[CC] as Record<string, string> }]);
			const run = await timed(
				async () =>
					await runNode({
						type: 'fxTradeReport',
						parameters: { operation: 'getMany', startDate, returnAll: true, options: { pageSize: 100 } },
						credentials: { [CC]: 'cc' },
						store,
					}),
			);
			tokenRequests = (await bank.admin<Stats>('GET', '/stats')).tokenRequests - before;
			return { seconds: run.seconds, value: run.value.output(NODE_NAME).length };
		};

		// Warm both paths once (JIT, engine modules), then alternate.
		await baseline();
		await node();
		const nodeTimes: number[] = [];
		const baseTimes: number[] = [];
		for (let i = 0; i < reps; i++) {
			collectGarbage();
			const b = await timed(baseline);
			if (b.value !== TRADES) throw new Error(`baseline got ${b.value} trades, expected ${TRADES}`);
			baseTimes.push(b.seconds);
			await bank.admin('POST', '/reset');
			collectGarbage();
			const n = await node();
			if (n.value !== TRADES) throw new Error(`node got ${n.value} trades, expected ${TRADES}`);
			nodeTimes.push(n.seconds);
		}
		const stats = await bank.admin<Stats>('GET', '/stats');
		return {
			trades: TRADES,
			ratio: round(median(nodeTimes) / median(baseTimes)),
			tokenRequests,
			nodeWallS: round(median(nodeTimes)),
			baselineWallS: round(median(baseTimes)),
			pages: stats.requests.filter((r) => r.area === 'report').length,
		};
	} finally {
		await bank.stop();
	}
}
