/**
 * One side of the ebicsTransfer benchmark, run in its own process so that its memory is measured
 * alone (the sandbox bank runs in another process): an upload, then a download, of `size` bytes
 * by one client. Prints `RESULT {json}` as its last line.
 *
 * - node: the EBICS node through n8n's engine with binary data on the filesystem: Read File (the
 *   file streamed into binary storage) -> EBICS upload (BTU, custom service, schema check off),
 *   then EBICS download (BTD) -> Hash (outside the timing). Upload and download seconds are the
 *   node's own execution times.
 * (The lower bound it is compared with, a minimal client and bank pair: ebicsPairWorker.ts.)
 *
 * The process's resident memory is sampled every 10 ms during the measured pair, over its idle
 * level after a warm-up pair of `warmupSize` bytes, a garbage collection and half a second of rest.
 */
import '../test/harness/env';

import { readFileSync } from 'node:fs';
import https from 'node:https';

import { testCredential } from '../test/harness/credentialTest';
import { plainJson } from './common';

import { chainWorkflow, createCredentialStore, runWorkflow, type ChainStep, type CredentialStore, type RunResult } from '../test/harness/engine';
import { InspectFile } from '../test/helpers/binaryNodes';
import { cpuSeconds, peakDuring, ReadFile, reportMeasured, runMain, unused, usedFields, type TransferTiming } from './workerCommon';
import { EBICS, PACKAGE, packageCredentialTypes, packageNodeTypes } from '../test/helpers/nodes';

interface Settings {
	client: 'node';
	file: string;
	size: number;
	/** SHA-256 of the file the bank delivers for the measured download (seeded by the parent). */
	downloadSha256: string;
	warmupFile: string;
	warmupDownloadSha256: string;
	credentials: Record<string, unknown>;
	/** The sandbox bank's process ID: its CPU time during each transfer is reported. */
	bankPid?: number;
	/** EBICS 2.5 (the peer's comparison): the credential is initialised first (INI, HIA, activation, HPB). */
	h004?: { adminUrl: string; caPem: string };
	/** Measure only one direction (the other is skipped and reported as 0 s). */
	only?: 'upload' | 'download';
}



/** One credential store for the process: what the credential keeps (keys, the bank's keys) stays between runs, as in n8n. */
let store: CredentialStore | undefined;
function storeOf(settings: Settings): CredentialStore {
	store ??= createCredentialStore([{ id: 'ebics', name: 'EBICS', type: EBICS, data: settings.credentials as never }]);
	return store;
}

/**
 * EBICS 2.5: the credential's keys made in n8n, sent with INI and HIA by its test, the subscriber
 * activated at the sandbox, and the bank's keys fetched by the test again (HPB). Not measured.
 */
async function initialiseH004(settings: Settings): Promise<void> {
	const h004 = settings.h004 as NonNullable<Settings['h004']>;
	const test = async () => await testCredential({ store: storeOf(settings), credentialTypes: packageCredentialTypes(), id: 'ebics' });
	const sent = await test();
	if (sent.status !== 'OK' && !/^Letters sent/.test(sent.message ?? '')) throw new Error(`INI and HIA: ${sent.message}`);
	const agent = new https.Agent({ ca: h004.caPem });
	const activated = await plainJson(agent, `${h004.adminUrl}/ebics/subscribers/${String(settings.credentials.partnerId)}/${String(settings.credentials.userId)}/activate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
	agent.destroy();
	if (activated.status !== 200) throw new Error(`activation: ${activated.status}`);
	const ready = await test();
	if (ready.status !== 'OK') throw new Error(`HPB: ${ready.message}`);
}

async function run(settings: Settings, steps: ChainStep[], what: string): Promise<RunResult> {
	const type = `${PACKAGE}.ebics`;
	const result = await runWorkflow({
		workflow: chainWorkflow(steps, { [type]: { [EBICS]: { id: 'ebics', name: 'EBICS' } } }),
		nodeTypes: { ...packageNodeTypes(), 'bench.readFile': new ReadFile(), 'bench.hashFile': new InspectFile() },
		credentialTypes: packageCredentialTypes(),
		credentials: storeOf(settings),
		binaryDataMode: 'filesystem',
	});
	if (result.status !== 'success') throw new Error(`the ${what} failed: ${result.error?.message ?? 'unknown error'} ${(result.error as { description?: string })?.description ?? ''}`);
	return result;
}

async function nodePair(settings: Settings, file: string, downloadSha256: string): Promise<TransferTiming> {
	const type = `${PACKAGE}.ebics`;
	let up: RunResult | undefined;
	let down: RunResult | undefined;
	const bankBefore = cpuSeconds(settings.bankPid);
	const uploadUsed = unused();
	const downloadUsed = unused();
	const uploadPeakRss = await peakDuring(async () => {
		if (settings.only === 'download') return;
		up = await run(
		settings,
		[
			{ name: 'Read', type: 'bench.readFile', parameters: { path: file } },
			{
				name: 'Upload',
				type,
				// EBICS 2.5: the SEPA credit transfer preset, sent as CCT (what the peer sends).
				parameters: settings.h004 ? { operation: 'upload', uploadService: 'sct', options: { checkSchema: false } } : { operation: 'upload', uploadService: 'custom', serviceName: 'SCT', msgName: 'pain.001', options: { checkSchema: false } },
			},
		],
		'upload',
	);
	}, uploadUsed);
	const bankBetween = cpuSeconds(settings.bankPid);
	const downloadPeakRss = await peakDuring(async () => {
		if (settings.only === 'upload') return;
		down = await run(
		settings,
		[
			{ name: 'Download', type, parameters: { operation: 'download', downloadService: 'mt942' } },
			{ name: 'Hash', type: 'bench.hashFile', parameters: {} },
		],
		'download',
	);
	}, downloadUsed);
	const bankAfter = cpuSeconds(settings.bankPid);
	const got = down?.output('Hash')[0].json.sha256;
	if (down && got !== downloadSha256) throw new Error(`the downloaded file differs (${String(got)} instead of ${downloadSha256})`);
	const seconds = (result: RunResult | undefined, name: string) => (result ? (result.runData[name]?.[0]?.executionTime ?? NaN) / 1000 : 0);
	return {
		uploadS: seconds(up, 'Upload'),
		downloadS: seconds(down, 'Download'),
		uploadPeakRss,
		downloadPeakRss,
		uploadBankCpuS: bankBetween - bankBefore,
		downloadBankCpuS: bankAfter - bankBetween,
		...usedFields(uploadUsed, downloadUsed),
	};
}

async function main(): Promise<void> {
	const settings = JSON.parse(readFileSync(process.argv[2], 'utf8')) as Settings;
	await reportMeasured(
		async () => {
			if (settings.h004) await initialiseH004(settings);
			await nodePair(settings, settings.warmupFile, settings.warmupDownloadSha256);
		},
		async () => await nodePair(settings, settings.file, settings.downloadSha256),
	);
}

runMain(main);
