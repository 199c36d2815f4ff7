/** What the nodes read of an input item's binary file before deciding how to send it. */
import type { IExecuteFunctions } from 'n8n-workflow';

/** Size of a file in n8n's binary storage, from its metadata. */
export async function storedFileSize(
	ctx: IExecuteFunctions,
	id: string,
	known: number | undefined,
): Promise<number | undefined> {
	if (typeof known === 'number') return known;
	try {
		const metadata = await ctx.helpers.getBinaryMetadata(id);
		return typeof metadata.fileSize === 'number' ? metadata.fileSize : undefined;
	} catch {
		return undefined;
	}
}
