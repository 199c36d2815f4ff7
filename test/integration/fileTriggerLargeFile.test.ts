/**
 * Bank File Trigger with a 100 MB file (25 times the largest piece allowed in memory): it is
 * streamed from the bank into n8n's binary storage (filesystem mode), never held in memory: the
 * streamed reading is used, and no buffer or string anywhere near its size is made while the poll
 * runs. The stored file is byte-identical.
 */
import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';
import { createHash } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import * as responseStreamModule from '../../nodes/shared/bxd/responseStream';
import * as exchangeModule from '../../nodes/shared/bxd/exchange';
import { useSandbox } from '../helpers/bank';
import { fileTriggerHarness } from '../helpers/fileTrigger';
import { allocationWatch, fileChunks } from '../helpers/memory';

const sandbox = useSandbox({ seed: 42 });
const MB = 1_000_000;
const SIZE = 100 * MB;

let dir: string;
beforeAll(() => {
	dir = mkdtempSync(join(tmpdir(), 'file-trigger-large-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a 100 MB file arriving at the bank is emitted once, streamed into binary storage with flat memory, byte-identical', async () => {
	const bank = sandbox.bank();
	const path = join(dir, 'large-statement-archive.bin');
	const hash = createHash('sha256');
	await pipeline(
		Readable.from(
			(function* () {
				for (const chunk of fileChunks(SIZE)) {
					hash.update(chunk);
					yield chunk;
				}
			})(),
		),
		createWriteStream(path),
	);
	const expected = hash.digest('hex');

	const h = fileTriggerHarness(bank, { fileTypes: {} });
	expect(await h.poll()).toBeNull(); // the start
	const large = bank.files.put({ fileType: 'XT', content: { path }, status: 'NEW', userFilename: 'statement-archive.bin', fileTimestamp: new Date(Date.now() + 60_000) });

	const streamed = jest.spyOn(responseStreamModule, 'readResponseStream');
	const readWhole = jest.spyOn(exchangeModule, 'readResponse');
	const watch = allocationWatch();
	let result;
	try {
		result = await h.poll();
	} finally {
		const largest = watch.stop();
		// Its base64 alone would be 133 MB: nothing anywhere near the file's size was made.
		expect(largest).toBeLessThan(4 * 1024 * 1024);
	}
	const items = result![0];
	const item = items.find((i) => i.json.fileReference === large.fileReference)!;
	expect(item.json).toMatchObject({ fileSize: SIZE, fileName: 'statement-archive.bin', responseCode: '00', recovered: false });
	expect(streamed).toHaveBeenCalled();
	for (const call of readWhole.mock.calls) expect(call[2].length).toBeLessThan(4 * 1024 * 1024);
	streamed.mockRestore();
	readWhole.mockRestore();

	const id = item.binary!.data.id!;
	expect(id).toMatch(/^filesystem/);
	const stored = createHash('sha256');
	let size = 0;
	for await (const chunk of await Container.get(BinaryDataService).getAsStream(id)) {
		stored.update(chunk as Buffer);
		size += (chunk as Buffer).length;
	}
	expect(size).toBe(SIZE);
	expect(stored.digest('hex')).toBe(expected);
	expect(h.savedNodeStaticData().emitted).toContain(large.fileReference);
	expect(await h.poll()).toBeNull();
}, 600_000);
