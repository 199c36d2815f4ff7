import type { DetectedFormat, ParseEvent, PaymentStatus } from './types';
import type { SubtreeHandler, XNode } from './xml';
import { child, firstText, text } from './xml';

const num = (value: string | null): number | null =>
	value === null || !Number.isFinite(Number(value)) ? null : Number(value);

function reason(
	node: XNode | undefined,
): Pick<PaymentStatus, 'reasonCode' | 'reasonProprietary' | 'additionalInfo'> {
	const info = node?.children.filter((c) => c.name === 'StsRsnInf') ?? [];
	const first = info[0];
	const additional = info
		.flatMap((i) => i.children.filter((c) => c.name === 'AddtlInf').map((c) => c.text))
		.filter(Boolean);
	return {
		reasonCode: text(first, 'Rsn', 'Cd'),
		reasonProprietary: text(first, 'Rsn', 'Prtry'),
		additionalInfo: additional.join(' ') || null,
	};
}

/**
 * pain.002: one status per payment (TxInfAndSts); when the bank reports only a payment
 * information block's or the whole message's status, one per block or one for the message.
 */
export class Pain002Reader implements SubtreeHandler {
	private header?: XNode;
	private group?: XNode;
	private block?: { parts: XNode[]; transactions: number };
	private emitted = 0;

	constructor(
		private readonly format: DetectedFormat,
		private readonly emit: (event: ParseEvent) => void,
	) {}

	capture(path: readonly string[]): boolean {
		if (path.length === 3) return path[2] === 'GrpHdr' || path[2] === 'OrgnlGrpInfAndSts';
		return path.length === 4 && path[2] === 'OrgnlPmtInfAndSts';
	}

	onOpen(path: readonly string[]): void {
		if (path.length === 3 && path[2] === 'OrgnlPmtInfAndSts')
			this.block = { parts: [], transactions: 0 };
	}

	onCaptured(path: readonly string[], node: XNode): void {
		if (path.length === 3) {
			if (node.name === 'GrpHdr') this.header = node;
			else this.group = node;
			return;
		}
		const block = this.block!;
		if (node.name !== 'TxInfAndSts') {
			block.parts.push(node);
			return;
		}
		block.transactions++;
		const ref = child(node, 'OrgnlTxRef');
		const amount = child(ref, 'Amt', 'InstdAmt');
		// A transaction without a status of its own has its block's (or the message's), and the
		// reason given with that status, unless it gives a reason of its own.
		const own = reason(node);
		const ownStatus = text(node, 'TxSts');
		const blockStatus = this.blockPart('PmtInfSts')?.text || null;
		const status = ownStatus ?? blockStatus ?? text(this.group, 'GrpSts');
		const inherited =
			ownStatus || own.reasonCode || own.reasonProprietary || own.additionalInfo
				? own
				: reason(blockStatus ? this.blockNode() : this.group);
		this.push({
			level: 'transaction',
			originalPaymentInformationId: this.blockPart('OrgnlPmtInfId')?.text ?? null,
			originalInstructionId: text(node, 'OrgnlInstrId'),
			originalEndToEndId: text(node, 'OrgnlEndToEndId'),
			statusId: text(node, 'StsId'),
			status,
			...inherited,
			amount: num(amount?.text ?? null),
			currency: amount?.attrs.Ccy ?? null,
			requestedExecutionDate: firstText(
				ref,
				['ReqdExctnDt', 'Dt'],
				['ReqdExctnDt', 'DtTm'],
				['ReqdExctnDt'],
			),
			creditorName: firstText(ref, ['Cdtr', 'Nm'], ['Cdtr', 'Pty', 'Nm']),
			creditorIban: text(ref, 'CdtrAcct', 'Id', 'IBAN'),
		});
	}

	private blockPart(name: string): XNode | undefined {
		return this.block?.parts.find((p) => p.name === name);
	}

	/** The block's own elements read so far (everything before its transactions) as one node. */
	private blockNode(): XNode {
		return { name: 'OrgnlPmtInfAndSts', attrs: {}, children: this.block?.parts ?? [], text: '' };
	}

	onClose(path: readonly string[]): void {
		if (path.length === 3 && path[2] === 'OrgnlPmtInfAndSts') {
			const block = this.block!;
			if (!block.transactions) {
				const fake = this.blockNode();
				this.push({
					level: 'paymentInformation',
					originalPaymentInformationId: text(fake, 'OrgnlPmtInfId'),
					status: text(fake, 'PmtInfSts') ?? text(this.group, 'GrpSts'),
					...reason(fake),
					originalNumberOfTransactions: num(text(fake, 'OrgnlNbOfTxs')),
					originalControlSum: num(text(fake, 'OrgnlCtrlSum')),
				});
			}
			this.block = undefined;
		}
		if (path.length === 2 && !this.emitted) {
			this.push({ level: 'group', status: text(this.group, 'GrpSts'), ...reason(this.group) });
		}
	}

	private push(status: Partial<PaymentStatus> & Pick<PaymentStatus, 'level'>): void {
		this.emitted++;
		this.emit({
			type: 'paymentStatus',
			status: {
				messageType: this.format.messageType,
				messageId: text(this.header, 'MsgId'),
				created: text(this.header, 'CreDtTm'),
				originalMessageId: text(this.group, 'OrgnlMsgId'),
				originalMessageType: text(this.group, 'OrgnlMsgNmId'),
				level: status.level,
				originalPaymentInformationId: status.originalPaymentInformationId ?? null,
				originalInstructionId: status.originalInstructionId ?? null,
				originalEndToEndId: status.originalEndToEndId ?? null,
				statusId: status.statusId ?? null,
				status: status.status ?? null,
				reasonCode: status.reasonCode ?? null,
				reasonProprietary: status.reasonProprietary ?? null,
				additionalInfo: status.additionalInfo ?? null,
				amount: status.amount ?? null,
				currency: status.currency ?? null,
				requestedExecutionDate: status.requestedExecutionDate ?? null,
				creditorName: status.creditorName ?? null,
				creditorIban: status.creditorIban ?? null,
				originalNumberOfTransactions:
					status.originalNumberOfTransactions ?? num(text(this.group, 'OrgnlNbOfTxs')),
				originalControlSum: status.originalControlSum ?? num(text(this.group, 'OrgnlCtrlSum')),
			},
		});
	}
}
