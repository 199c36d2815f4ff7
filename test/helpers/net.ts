/** Network helpers for tests. */
import { createServer, type AddressInfo } from 'node:net';

/** An https address on this host where nothing listens (a port taken, then released). */
export async function closedPortUrl(path = '/services/CertificateService'): Promise<string> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return `https://127.0.0.1:${port}${path}`;
}
