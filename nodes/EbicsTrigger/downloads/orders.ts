/**
 * What each poll downloads, by the credential's EBICS version. EBICS 3.0 (H005): BTD of each
 * chosen service (presets and typed BTF services). EBICS 2.5 (H004): each preset as the EBICS 2.5
 * order type that stands for it (C53 for camt.053, STA for MT940, ...) and the order types typed
 * under Order Types (CRZ, Z01, ...), each downloaded as what the bank has not delivered
 * yet. A choice the credential's version cannot send is refused by name before anything is sent.
 */
import type { BtfService, Download, EbicsClient } from '../../shared/ebics';
import {
	H004_ORDER_TYPES,
	H004_PRESET_ORDER_TYPES,
	SERVICE_PRESETS,
	serviceLabel,
} from '../../shared/ebics';
import { InputError } from '../../shared/common/errors';
import type { EbicsTriggerSettings } from './settings';

export interface TriggerDownload {
	/** How items, logs and receipts name it: "BTD EOP camt.053 ZIP", "C53 (End-of-day ...)". */
	label: string;
	/** Names that tell the file format (for the test event's sample). */
	formatNames: string[];
	fetch: () => Promise<Download | undefined>;
}

const NOTHING_SENT = { description: 'Nothing was sent to the bank.' };

/** "C53 (End-of-day statement camt.053)", as the EBICS node names an H004 order. */
function h004Label(orderType: string): string {
	const entry = H004_ORDER_TYPES[orderType];
	return `${orderType}${entry ? ` (${entry.label.replace(/ \([A-Z0-9]{3}\)$/, '')})` : ''}`;
}

function btd(client: EbicsClient, service: BtfService): TriggerDownload {
	return {
		label: `BTD ${serviceLabel(service)}`,
		formatNames: [service.msgName, service.msgFormat ?? ''],
		fetch: async () => await client.btd(service),
	};
}

function h004(client: EbicsClient, orderType: string): TriggerDownload {
	const entry = H004_ORDER_TYPES[orderType];
	return {
		label: h004Label(orderType),
		formatNames: entry ? [entry.label, entry.fileName] : [orderType],
		fetch: async () => await client.download(orderType, { kind: 'standard' }),
	};
}

/**
 * Refuses, before anything is sent, a choice the credential's EBICS version cannot send: EBICS 2.5
 * order types with an EBICS 3.0 credential; typed BTF services, or a preset without an EBICS 2.5
 * order type, with an EBICS 2.5 one.
 */
export function checkForVersion(version: string, settings: EbicsTriggerSettings): void {
	if (version !== 'H004') {
		if (settings.h004OrderTypes.length)
			throw new InputError(
				'Order Types: these are for credentials whose EBICS Version is H004 (EBICS 2.5); this credential speaks EBICS 3.0 (H005), which takes BTF services: choose them under Services or Other Services, and empty Order Types',
				NOTHING_SENT,
			);
		return;
	}
	if (settings.typedServices)
		throw new InputError(
			"Other Services: BTF services are EBICS 3.0, and the credential's EBICS Version is H004 (EBICS 2.5). Type the bank's EBICS 2.5 order types under Order Types instead",
			NOTHING_SENT,
		);
	for (const key of settings.presets)
		if (!H004_PRESET_ORDER_TYPES[key])
			throw new InputError(
				`Services: ${SERVICE_PRESETS[key]?.label ?? key} has no EBICS 2.5 order type common to all banks, and the credential's EBICS Version is H004 (EBICS 2.5). Take it out of Services and type the order type the bank contract names under Order Types (e.g. CRZ or Z01 for pain.002 status reports)`,
				NOTHING_SENT,
			);
}

/** The downloads of one poll for the client's version (checked with checkForVersion). */
export function triggerDownloads(
	client: EbicsClient,
	settings: EbicsTriggerSettings,
): TriggerDownload[] {
	checkForVersion(client.version, settings);
	if (client.version !== 'H004') return settings.services.map((service) => btd(client, service));
	const presets = settings.presets.map((key) => H004_PRESET_ORDER_TYPES[key]);
	return [...new Set([...presets, ...settings.h004OrderTypes])].map((orderType) =>
		h004(client, orderType),
	);
}
