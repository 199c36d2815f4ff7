/**
 * The sandbox bank's HPD: its EBICS parameters (access, protocol versions and features) in the
 * namespace of the version asked; Recovery follows the bank's recovery switch. X509Data exists
 * only in H004's schema.
 */
import { el, H005_NS, leaf } from '../../../nodes/shared/ebics';
import type { SandboxEbicsBank } from './bank';

export function hpdData(bank: SandboxEbicsBank, ns: string): string {
	return (
		'<?xml version="1.0" encoding="UTF-8"?>' +
		el(
			'HPDResponseOrderData',
			{ xmlns: ns },
			el('AccessParams', {}, leaf('URL', 'https://sandbox.invalid/ebics', { valid_from: '2020-01-01T00:00:00Z' }), leaf('Institute', 'Sandbox Bank'), leaf('HostID', bank.hostId)),
			el(
				'ProtocolParams',
				{},
				el('Version', {}, leaf('Protocol', 'H004 H005'), leaf('Authentication', 'X002'), leaf('Encryption', 'E002'), leaf('Signature', 'A006')),
				el('Recovery', { supported: bank.switches.recovery ? 'true' : 'false' }),
				el('PreValidation', { supported: 'false' }),
				ns !== H005_NS && el('X509Data', { supported: 'true', persistent: 'false' }),
				el('ClientDataDownload', { supported: 'true' }),
				el('DownloadableOrderData', { supported: 'true' }),
			),
		)
	);
}
