/**
 * Runs one step of the npm package ebics-client (5.x, EBICS 2.5 / H004, written by others) against
 * an EBICS URL, and prints the outcome as one JSON line. The test runs it in a child process, one
 * step at a time, with NODE_EXTRA_CA_CERTS set to the sandbox CA:
 *
 *   node ebicsClientH004.js <step> <state dir> <url> <hostId> <partnerId> <userId> [file]
 *
 * step: keys (INI and HIA), hpb (fetch and keep the bank keys), upload (CCT of <file>),
 * download-sta, download-c53. The client's keys stay in <state dir>/keys (its own encrypted format).
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { Client, Orders, fsKeysStorage } = require('ebics-client');

const [step, stateDir, url, hostId, partnerId, userId, file] = process.argv.slice(2);

const client = new Client({
	url,
	hostId,
	partnerId,
	userId,
	passphrase: 'sandbox test passphrase',
	keyStorage: fsKeysStorage(path.join(stateDir, 'keys')),
	bankName: 'Sandbox Bank',
});

const codes = (response) => ({
	technicalCode: response.technicalCode,
	technicalCodeSymbol: response.technicalCodeSymbol,
	businessCode: response.businessCode,
	businessCodeSymbol: response.businessCodeSymbol,
});

async function main() {
	switch (step) {
		case 'keys': {
			const ini = await client.send(Orders.INI);
			const hia = await client.send(Orders.HIA);
			return { ini: codes(ini), hia: codes(hia) };
		}
		case 'hpb': {
			const hpb = await client.send(Orders.HPB);
			if (hpb.bankKeys && hpb.bankKeys.bankX002) await client.setBankKeys(hpb.bankKeys);
			return { hpb: codes(hpb), bankKeys: Object.keys(hpb.bankKeys || {}).sort() };
		}
		case 'upload': {
			const [transactionId, orderId] = await client.send(Orders.CCT(fs.readFileSync(file, 'utf8')));
			return { transactionId, orderId };
		}
		case 'download-sta':
		case 'download-c53': {
			const order = step === 'download-sta' ? Orders.STA() : Orders.C53();
			const response = await client.send(order);
			return { ...codes(response), orderData: Buffer.isBuffer(response.orderData) ? response.orderData.toString('base64') : null };
		}
		default:
			throw new Error(`unknown step ${step}`);
	}
}

main().then(
	(result) => process.stdout.write(`${JSON.stringify(result)}\n`),
	(error) => {
		process.stdout.write(`${JSON.stringify({ error: error.message })}\n`);
		process.exitCode = 1;
	},
);
