/**
 * HPD: the bank's EBICS parameters (HPDResponseOrderData, the same in H004 and H005): where and
 * whom to reach (URLs with the time each is valid from, the institute, the host ID), the protocol
 * and key versions the bank speaks, and the features it offers (transaction recovery,
 * pre-validation, X.509 data, the client data download, the downloadable order data list).
 */
import { H004_NS } from './h004/requests';
import { H005_NS } from './constants';
import { EbicsFormatError } from './errors';
import { child, children, parseDocument, text } from './xml';

/** The bank's EBICS parameters (HPD). */
export interface BankParameters {
	/** The bank's addresses, each with the time from which it is valid when the bank says. */
	urls: Array<{ url: string; validFrom?: string }>;
	institute: string;
	hostId?: string;
	protocolVersions: string[];
	authenticationVersions: string[];
	encryptionVersions: string[];
	signatureVersions: string[];
	/** Each feature: true or false as the bank states it; undefined when the bank does not say. */
	recovery?: boolean;
	preValidation?: boolean;
	x509Data?: boolean;
	x509DataPersistent?: boolean;
	clientDataDownload?: boolean;
	downloadableOrderData?: boolean;
}

function words(value: string | undefined): string[] {
	return (value ?? '').split(/\s+/).filter(Boolean);
}

/**
 * A flag of an element the bank may leave out: the attribute when given, its schema default when
 * the element is there without it (supported: true; persistent: false), undefined without it.
 */
function flag(element: Element | undefined, attribute = 'supported'): boolean | undefined {
	if (!element) return undefined;
	const value = element.getAttribute(attribute);
	if (!value) return attribute === 'supported';
	return value === 'true' || value === '1';
}

/** Reads HPDResponseOrderData of either version. */
export function readBankParameters(xml: Buffer): BankParameters {
	const root = parseDocument(xml, "The bank's HPD").documentElement;
	const ns = root.namespaceURI ?? '';
	if ((ns !== H005_NS && ns !== H004_NS) || root.localName !== 'HPDResponseOrderData')
		throw new EbicsFormatError(
			`The bank's answer is not an HPDResponseOrderData (the root is ${root.localName})`,
		);
	const access = child(root, ns, 'AccessParams');
	const protocol = child(root, ns, 'ProtocolParams');
	const version = child(protocol, ns, 'Version');
	const x509 = child(protocol, ns, 'X509Data');
	const urls = children(access, ns, 'URL').map((url) => {
		const validFrom = url.getAttribute('valid_from') || undefined;
		return { url: text(url) ?? '', ...(validFrom ? { validFrom } : {}) };
	});
	if (!access || !version)
		throw new EbicsFormatError("The bank's HPD answer has no AccessParams or no protocol Version");
	return {
		urls,
		institute: text(child(access, ns, 'Institute')) ?? '',
		hostId: text(child(access, ns, 'HostID')),
		protocolVersions: words(text(child(version, ns, 'Protocol'))),
		authenticationVersions: words(text(child(version, ns, 'Authentication'))),
		encryptionVersions: words(text(child(version, ns, 'Encryption'))),
		signatureVersions: words(text(child(version, ns, 'Signature'))),
		recovery: flag(child(protocol, ns, 'Recovery')),
		preValidation: flag(child(protocol, ns, 'PreValidation')),
		x509Data: flag(x509),
		x509DataPersistent: flag(x509, 'persistent'),
		clientDataDownload: flag(child(protocol, ns, 'ClientDataDownload')),
		downloadableOrderData: flag(child(protocol, ns, 'DownloadableOrderData')),
	};
}
