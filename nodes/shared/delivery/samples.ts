/**
 * The sample files a file trigger's "Fetch Test Event" shows when the bank has no file it can hand
 * out without changing its delivery state (the Bank File Trigger, the EBICS Trigger): one small
 * file of each format the Bank File node reads, each marked as a sample (its name; the XML files
 * also in a comment and their message ID; and the `sample` field of every item the trigger makes
 * of it), parsed by the same parser as the bank's files (test/integration/fileTriggerParse.test.ts).
 */
import type { BankFileFormat } from '../bankfiles';

export interface SampleFile {
	format: BankFileFormat;
	fileName: string;
	mimeType: string;
	content: string;
}

/** Fixed-width records (TITO, KTL) and BAI2 records end with CR LF. */
const records = (lines: string[]): string => lines.join('\r\n');

const CAMT_053 = `<?xml version="1.0" encoding="UTF-8"?>
<!-- A sample file made by the Bank File Trigger of n8n-nodes-corporate-banking for Fetch Test Event. Not a file from a bank. -->
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
	<BkToCstmrStmt>
		<GrpHdr>
			<MsgId>SAMPLE-STMT-20261120-0001</MsgId>
			<CreDtTm>2026-11-21T04:12:00+02:00</CreDtTm>
			<MsgPgntn><PgNb>1</PgNb><LastPgInd>true</LastPgInd></MsgPgntn>
		</GrpHdr>
		<Stmt>
			<Id>2026112000785</Id>
			<ElctrncSeqNb>224</ElctrncSeqNb>
			<LglSeqNb>224</LglSeqNb>
			<CreDtTm>2026-11-21T04:12:00+02:00</CreDtTm>
			<FrToDt><FrDtTm>2026-11-20T00:00:00+02:00</FrDtTm><ToDtTm>2026-11-20T23:59:59+02:00</ToDtTm></FrToDt>
			<Acct>
				<Id><IBAN>FI2112345600000785</IBAN></Id>
				<Ccy>EUR</Ccy>
				<Ownr><Nm>Esimerkki Oyj</Nm></Ownr>
				<Svcr><FinInstnId><BIC>SBXBFIHH</BIC></FinInstnId></Svcr>
			</Acct>
			<Bal>
				<Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp>
				<Amt Ccy="EUR">10000.00</Amt><CdtDbtInd>CRDT</CdtDbtInd>
				<Dt><Dt>2026-11-19</Dt></Dt>
			</Bal>
			<Bal>
				<Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp>
				<Amt Ccy="EUR">9657.55</Amt><CdtDbtInd>CRDT</CdtDbtInd>
				<Dt><Dt>2026-11-20</Dt></Dt>
			</Bal>
			<Bal>
				<Tp><CdOrPrtry><Cd>CLAV</Cd></CdOrPrtry></Tp>
				<Amt Ccy="EUR">9157.55</Amt><CdtDbtInd>CRDT</CdtDbtInd>
				<Dt><Dt>2026-11-20</Dt></Dt>
			</Bal>
			<TxsSummry>
				<TtlNtries><NbOfNtries>6</NbOfNtries></TtlNtries>
				<TtlCdtNtries><NbOfNtries>3</NbOfNtries><Sum>2920.40</Sum></TtlCdtNtries>
				<TtlDbtNtries><NbOfNtries>3</NbOfNtries><Sum>3262.85</Sum></TtlDbtNtries>
			</TxsSummry>
			<Ntry>
				<NtryRef>1</NtryRef>
				<Amt Ccy="EUR">1500.00</Amt>
				<CdtDbtInd>CRDT</CdtDbtInd>
				<Sts>BOOK</Sts>
				<BookgDt><Dt>2026-11-20</Dt></BookgDt>
				<ValDt><Dt>2026-11-20</Dt></ValDt>
				<AcctSvcrRef>261120AAA0001</AcctSvcrRef>
				<BkTxCd>
					<Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn>
					<Prtry><Cd>705</Cd><Issr>FFFS</Issr></Prtry>
				</BkTxCd>
				<NtryDtls>
					<TxDtls>
						<Refs><AcctSvcrRef>261120AAA0001</AcctSvcrRef><EndToEndId>INV-1001</EndToEndId></Refs>
						<AmtDtls><TxAmt><Amt Ccy="EUR">1500.00</Amt></TxAmt></AmtDtls>
						<RltdPties>
							<Dbtr><Nm>Aros Food Group AB</Nm></Dbtr>
							<DbtrAcct><Id><IBAN>SE4550000000058398257466</IBAN></Id></DbtrAcct>
						</RltdPties>
						<RltdAgts><DbtrAgt><FinInstnId><BIC>ESSESESS</BIC></FinInstnId></DbtrAgt></RltdAgts>
						<RmtInf>
							<Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry><Issr>ISO</Issr></Tp><Ref>RF18539007547034</Ref></CdtrRefInf></Strd>
						</RmtInf>
					</TxDtls>
				</NtryDtls>
			</Ntry>
			<Ntry>
				<NtryRef>2</NtryRef>
				<Amt Ccy="EUR">250.35</Amt>
				<CdtDbtInd>DBIT</CdtDbtInd>
				<Sts>BOOK</Sts>
				<BookgDt><Dt>2026-11-20</Dt></BookgDt>
				<ValDt><Dt>2026-11-20</Dt></ValDt>
				<AcctSvcrRef>261120AAA0002</AcctSvcrRef>
				<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>ICDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>
				<NtryDtls>
					<TxDtls>
						<Refs><MsgId>PAY-77</MsgId><PmtInfId>PAY-77-1</PmtInfId><InstrId>I-2001</InstrId><EndToEndId>E2E-2001</EndToEndId></Refs>
						<AmtDtls><TxAmt><Amt Ccy="EUR">250.35</Amt></TxAmt></AmtDtls>
						<RltdPties>
							<Cdtr><Nm>Helsinki Office Supplies Oy</Nm></Cdtr>
							<CdtrAcct><Id><IBAN>FI5115723500048531</IBAN></Id></CdtrAcct>
						</RltdPties>
						<RltdAgts><CdtrAgt><FinInstnId><BIC>NDEAFIHH</BIC></FinInstnId></CdtrAgt></RltdAgts>
						<RmtInf>
							<Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry></Tp><Ref>1232</Ref></CdtrRefInf></Strd>
						</RmtInf>
					</TxDtls>
				</NtryDtls>
			</Ntry>
			<Ntry>
				<NtryRef>3</NtryRef>
				<Amt Ccy="EUR">3000.00</Amt>
				<CdtDbtInd>DBIT</CdtDbtInd>
				<Sts>BOOK</Sts>
				<BookgDt><Dt>2026-11-20</Dt></BookgDt>
				<ValDt><Dt>2026-11-20</Dt></ValDt>
				<AcctSvcrRef>261120AAA0003</AcctSvcrRef>
				<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>ICDT</Cd><SubFmlyCd>SALA</SubFmlyCd></Fmly></Domn></BkTxCd>
				<NtryDtls>
					<Btch><NbOfTxs>2</NbOfTxs></Btch>
					<TxDtls>
						<Refs><PmtInfId>SAL-11</PmtInfId><EndToEndId>SAL-1</EndToEndId></Refs>
						<AmtDtls><TxAmt><Amt Ccy="EUR">1200.00</Amt></TxAmt></AmtDtls>
						<RltdPties>
							<Cdtr><Nm>Maija Meikäläinen</Nm></Cdtr>
							<CdtrAcct><Id><IBAN>FI5279360001072486</IBAN></Id></CdtrAcct>
						</RltdPties>
						<Purp><Cd>SALA</Cd></Purp>
						<RmtInf><Ustrd>Salary 11/2026</Ustrd></RmtInf>
					</TxDtls>
					<TxDtls>
						<Refs><PmtInfId>SAL-11</PmtInfId><EndToEndId>SAL-2</EndToEndId></Refs>
						<AmtDtls><TxAmt><Amt Ccy="EUR">1800.00</Amt></TxAmt></AmtDtls>
						<RltdPties>
							<Cdtr><Nm>Matti Virtanen</Nm></Cdtr>
							<CdtrAcct><Id><IBAN>FI1029501800021342</IBAN></Id></CdtrAcct>
						</RltdPties>
						<Purp><Cd>SALA</Cd></Purp>
						<RmtInf><Ustrd>Salary 11/2026</Ustrd></RmtInf>
					</TxDtls>
				</NtryDtls>
			</Ntry>
			<Ntry>
				<NtryRef>4</NtryRef>
				<Amt Ccy="EUR">920.40</Amt>
				<CdtDbtInd>CRDT</CdtDbtInd>
				<Sts>BOOK</Sts>
				<BookgDt><Dt>2026-11-20</Dt></BookgDt>
				<ValDt><Dt>2026-11-21</Dt></ValDt>
				<AcctSvcrRef>261120AAA0004</AcctSvcrRef>
				<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>XBCT</SubFmlyCd></Fmly></Domn></BkTxCd>
				<NtryDtls>
					<TxDtls>
						<Refs><EndToEndId>NOTPROVIDED</EndToEndId><TxId>FX-88120</TxId></Refs>
						<AmtDtls>
							<InstdAmt><Amt Ccy="USD">1000.00</Amt></InstdAmt>
							<TxAmt>
								<Amt Ccy="EUR">920.40</Amt>
								<CcyXchg><SrcCcy>USD</SrcCcy><TrgtCcy>EUR</TrgtCcy><UnitCcy>USD</UnitCcy><XchgRate>0.9204</XchgRate><CtrctId>FXC-5531</CtrctId></CcyXchg>
							</TxAmt>
						</AmtDtls>
						<RltdPties>
							<Dbtr><Nm>Hanse Metals GmbH</Nm></Dbtr>
							<DbtrAcct><Id><IBAN>DE89370400440532013000</IBAN></Id></DbtrAcct>
						</RltdPties>
						<RltdAgts><DbtrAgt><FinInstnId><BIC>COBADEFFXXX</BIC></FinInstnId></DbtrAgt></RltdAgts>
						<RmtInf><Ustrd>Order 5531</Ustrd></RmtInf>
					</TxDtls>
				</NtryDtls>
			</Ntry>
			<Ntry>
				<NtryRef>5</NtryRef>
				<Amt Ccy="EUR">12.50</Amt>
				<CdtDbtInd>DBIT</CdtDbtInd>
				<Sts>BOOK</Sts>
				<BookgDt><Dt>2026-11-20</Dt></BookgDt>
				<ValDt><Dt>2026-11-20</Dt></ValDt>
				<AcctSvcrRef>261120AAA0005</AcctSvcrRef>
				<BkTxCd>
					<Domn><Cd>ACMT</Cd><Fmly><Cd>MDOP</Cd><SubFmlyCd>CHRG</SubFmlyCd></Fmly></Domn>
					<Prtry><Cd>730</Cd><Issr>FFFS</Issr></Prtry>
				</BkTxCd>
				<AddtlNtryInf>Service fee 10/2026</AddtlNtryInf>
			</Ntry>
			<Ntry>
				<NtryRef>6</NtryRef>
				<Amt Ccy="EUR">500.00</Amt>
				<CdtDbtInd>CRDT</CdtDbtInd>
				<RvslInd>true</RvslInd>
				<Sts>BOOK</Sts>
				<BookgDt><Dt>2026-11-20</Dt></BookgDt>
				<ValDt><Dt>2026-11-20</Dt></ValDt>
				<AcctSvcrRef>261120AAA0006</AcctSvcrRef>
				<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>ICDT</Cd><SubFmlyCd>RRTN</SubFmlyCd></Fmly></Domn></BkTxCd>
				<NtryDtls>
					<TxDtls>
						<Refs><EndToEndId>E2E-1999</EndToEndId></Refs>
						<RtrInf><Rsn><Cd>AC04</Cd></Rsn><AddtlInf>Account closed</AddtlInf></RtrInf>
					</TxDtls>
				</NtryDtls>
			</Ntry>
		</Stmt>
		<Stmt>
			<Id>2026112000081</Id>
			<ElctrncSeqNb>118</ElctrncSeqNb>
			<CreDtTm>2026-11-21T04:12:00+02:00</CreDtTm>
			<FrToDt><FrDtTm>2026-11-20T00:00:00+02:00</FrDtTm><ToDtTm>2026-11-20T23:59:59+02:00</ToDtTm></FrToDt>
			<Acct>
				<Id><IBAN>FI5542345670000081</IBAN></Id>
				<Ccy>EUR</Ccy>
				<Ownr><Nm>Esimerkki Oyj</Nm></Ownr>
				<Svcr><FinInstnId><BIC>SBXBFIHH</BIC></FinInstnId></Svcr>
			</Acct>
			<Bal>
				<Tp><CdOrPrtry><Cd>PRCD</Cd></CdOrPrtry></Tp>
				<Amt Ccy="EUR">500.00</Amt><CdtDbtInd>CRDT</CdtDbtInd>
				<Dt><Dt>2026-11-19</Dt></Dt>
			</Bal>
			<Bal>
				<Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp>
				<Amt Ccy="EUR">457.10</Amt><CdtDbtInd>CRDT</CdtDbtInd>
				<Dt><Dt>2026-11-20</Dt></Dt>
			</Bal>
			<Ntry>
				<NtryRef>1</NtryRef>
				<Amt Ccy="EUR">42.90</Amt>
				<CdtDbtInd>DBIT</CdtDbtInd>
				<Sts>BOOK</Sts>
				<BookgDt><Dt>2026-11-20</Dt></BookgDt>
				<ValDt><Dt>2026-11-19</Dt></ValDt>
				<AcctSvcrRef>261120BBB0001</AcctSvcrRef>
				<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>CCRD</Cd><SubFmlyCd>POSD</SubFmlyCd></Fmly></Domn></BkTxCd>
				<NtryDtls>
					<TxDtls>
						<RltdPties><Cdtr><Nm>Kahvila &amp; Leipomo Oy</Nm></Cdtr></RltdPties>
					</TxDtls>
				</NtryDtls>
				<AddtlNtryInf>Card purchase 4321********1234</AddtlNtryInf>
			</Ntry>
		</Stmt>
	</BkToCstmrStmt>
</Document>
`;

const CAMT_054 = `<?xml version="1.0" encoding="UTF-8"?>
<!-- A sample file made by the Bank File Trigger of n8n-nodes-corporate-banking for Fetch Test Event. Not a file from a bank. -->
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.02" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
	<BkToCstmrDbtCdtNtfctn>
		<GrpHdr>
			<MsgId>SAMPLE-NTF-20261120-0001</MsgId>
			<CreDtTm>2026-11-20T18:00:00+02:00</CreDtTm>
		</GrpHdr>
		<Ntfctn>
			<Id>NTF-20261120-0001-1</Id>
			<ElctrncSeqNb>57</ElctrncSeqNb>
			<CreDtTm>2026-11-20T18:00:00+02:00</CreDtTm>
			<FrToDt><FrDtTm>2026-11-20T00:00:00+02:00</FrDtTm><ToDtTm>2026-11-20T18:00:00+02:00</ToDtTm></FrToDt>
			<Acct>
				<Id><IBAN>FI2112345600000785</IBAN></Id>
				<Ccy>EUR</Ccy>
				<Svcr><FinInstnId><BIC>SBXBFIHH</BIC></FinInstnId></Svcr>
			</Acct>
			<Ntry>
				<NtryRef>1</NtryRef>
				<Amt Ccy="EUR">310.00</Amt>
				<CdtDbtInd>CRDT</CdtDbtInd>
				<Sts>BOOK</Sts>
				<BookgDt><Dt>2026-11-20</Dt></BookgDt>
				<ValDt><Dt>2026-11-20</Dt></ValDt>
				<AcctSvcrRef>261120CCC0001</AcctSvcrRef>
				<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn><Prtry><Cd>705</Cd><Issr>FFFS</Issr></Prtry></BkTxCd>
				<NtryDtls>
					<Btch><NbOfTxs>2</NbOfTxs></Btch>
					<TxDtls>
						<Refs><AcctSvcrRef>261120CCC0001A</AcctSvcrRef><EndToEndId>NOTPROVIDED</EndToEndId></Refs>
						<AmtDtls><TxAmt><Amt Ccy="EUR">120.00</Amt></TxAmt></AmtDtls>
						<RltdPties>
							<Dbtr><Nm>Lapland Minerals Oy</Nm></Dbtr>
							<DbtrAcct><Id><IBAN>FI3944400100205558</IBAN></Id></DbtrAcct>
						</RltdPties>
						<RmtInf><Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry></Tp><Ref>123453</Ref></CdtrRefInf></Strd></RmtInf>
						<RltdDts><AccptncDtTm>2026-11-20T10:15:00+02:00</AccptncDtTm></RltdDts>
					</TxDtls>
					<TxDtls>
						<Refs><AcctSvcrRef>261120CCC0001B</AcctSvcrRef><EndToEndId>ORDER-77</EndToEndId></Refs>
						<AmtDtls><TxAmt><Amt Ccy="EUR">190.00</Amt></TxAmt></AmtDtls>
						<RltdPties>
							<Dbtr><Nm>Oulu Software Ltd</Nm></Dbtr>
							<DbtrAcct><Id><IBAN>FI1029501800021342</IBAN></Id></DbtrAcct>
						</RltdPties>
						<RltdAgts><DbtrAgt><FinInstnId><BIC>OKOYFIHH</BIC></FinInstnId></DbtrAgt></RltdAgts>
						<RmtInf><Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry><Issr>ISO</Issr></Tp><Ref>RF18539007547034</Ref></CdtrRefInf></Strd></RmtInf>
					</TxDtls>
				</NtryDtls>
			</Ntry>
			<Ntry>
				<NtryRef>2</NtryRef>
				<Amt Ccy="EUR">75.25</Amt>
				<CdtDbtInd>CRDT</CdtDbtInd>
				<Sts>BOOK</Sts>
				<BookgDt><Dt>2026-11-20</Dt></BookgDt>
				<ValDt><Dt>2026-11-20</Dt></ValDt>
				<AcctSvcrRef>261120CCC0002</AcctSvcrRef>
				<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>
				<NtryDtls>
					<TxDtls>
						<Refs><EndToEndId>E2E-3001</EndToEndId></Refs>
						<RltdPties><Dbtr><Nm>Tampere Energy Oy</Nm></Dbtr><DbtrAcct><Id><IBAN>FI5115723500048531</IBAN></Id></DbtrAcct></RltdPties>
						<RmtInf><Ustrd>Deposit refund</Ustrd><Ustrd>contract 44</Ustrd></RmtInf>
					</TxDtls>
				</NtryDtls>
			</Ntry>
		</Ntfctn>
	</BkToCstmrDbtCdtNtfctn>
</Document>
`;

const PAIN_002 = `<?xml version="1.0" encoding="UTF-8"?>
<!-- A sample file made by the Bank File Trigger of n8n-nodes-corporate-banking for Fetch Test Event. Not a file from a bank. -->
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.03" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
	<CstmrPmtStsRpt>
		<GrpHdr>
			<MsgId>SAMPLE-STS-20261120-17</MsgId>
			<CreDtTm>2026-11-20T09:30:00</CreDtTm>
			<InitgPty><Id><OrgId><BICOrBEI>SBXBFIHH</BICOrBEI></OrgId></Id></InitgPty>
		</GrpHdr>
		<OrgnlGrpInfAndSts>
			<OrgnlMsgId>PAY-77</OrgnlMsgId>
			<OrgnlMsgNmId>pain.001.001.03</OrgnlMsgNmId>
			<OrgnlNbOfTxs>3</OrgnlNbOfTxs>
			<OrgnlCtrlSum>1450.35</OrgnlCtrlSum>
			<GrpSts>PART</GrpSts>
		</OrgnlGrpInfAndSts>
		<OrgnlPmtInfAndSts>
			<OrgnlPmtInfId>PAY-77-1</OrgnlPmtInfId>
			<PmtInfSts>PART</PmtInfSts>
			<TxInfAndSts>
				<StsId>S-1</StsId>
				<OrgnlInstrId>I-2001</OrgnlInstrId>
				<OrgnlEndToEndId>E2E-2001</OrgnlEndToEndId>
				<TxSts>ACCP</TxSts>
				<OrgnlTxRef>
					<Amt><InstdAmt Ccy="EUR">250.35</InstdAmt></Amt>
					<ReqdExctnDt>2026-11-20</ReqdExctnDt>
					<Cdtr><Nm>Helsinki Office Supplies Oy</Nm></Cdtr>
					<CdtrAcct><Id><IBAN>FI5115723500048531</IBAN></Id></CdtrAcct>
				</OrgnlTxRef>
			</TxInfAndSts>
			<TxInfAndSts>
				<StsId>S-2</StsId>
				<OrgnlEndToEndId>E2E-2002</OrgnlEndToEndId>
				<TxSts>RJCT</TxSts>
				<StsRsnInf><Rsn><Cd>AC04</Cd></Rsn><AddtlInf>Closed account number</AddtlInf></StsRsnInf>
				<OrgnlTxRef>
					<Amt><InstdAmt Ccy="EUR">1200.00</InstdAmt></Amt>
					<ReqdExctnDt>2026-11-20</ReqdExctnDt>
					<Cdtr><Nm>Baltic Shipping Oy</Nm></Cdtr>
					<CdtrAcct><Id><IBAN>FI5279360001072486</IBAN></Id></CdtrAcct>
				</OrgnlTxRef>
			</TxInfAndSts>
		</OrgnlPmtInfAndSts>
		<OrgnlPmtInfAndSts>
			<OrgnlPmtInfId>PAY-77-2</OrgnlPmtInfId>
			<OrgnlNbOfTxs>1</OrgnlNbOfTxs>
			<OrgnlCtrlSum>0.00</OrgnlCtrlSum>
			<PmtInfSts>RJCT</PmtInfSts>
			<StsRsnInf><Rsn><Prtry>DT01</Prtry></Rsn><AddtlInf>Invalid execution date</AddtlInf></StsRsnInf>
		</OrgnlPmtInfAndSts>
	</CstmrPmtStsRpt>
</Document>
`;

const TITO = records([
	'T003221001234560000078522426112026112026112104121234567-8        261119+000000000001000000000006EURKayttotili                    000000000000000000Esimerkki Oyj                      Sandbox Bank                                                                                                  FI2112345600000785 SBXBFIHH   \nT10188000001261120AAA0001     2611202611202611201705Viitesiirto                        +000000000000150000AKÅkerlund Förvaltning AB            A               00000000000000001232         \nT1132311INV-1001                           SE4550000000058398257466           ESSESESS                                                                                                 Åkerlund Förvaltning AB                                                                                  261120AAA0001                      \nT10188000002261120AAA0002     2611202611212611202710SEPA-maksu                         -000000000000025035AKHelsingin Toimisto Oy              A15723500048531                              \nT1107800Lasku 2001 / marraskuu             Kiitos ja hyvää päivänjatkoa       \nT10188000003261120AAA0003     2611202611202611202720Palkat                             -000000000000300000AKPalkat 11/2026                     A                                            \nT110160100000002\nT10188000004261120AAA0003     2611202611202611202720Palkat                             -000000000000120000AKMaija Meikäläinen                  A                                           1\nT10188000005261120AAA0003     2611202611202611202720Palkat                             -000000000000180000AKMatti Virtanen                     A                                           1\nT10188000006261120AAA0004     2611202611202611201710Ulkomaan maksu                     +000000000000092040AKHanse Metals GmbH                  A                                            \nT1104905+000000000000100000 USD 00001086484      \nT10188000007261120AAA0005     2611202611202611202730Palvelumaksu                       -000000000000001250AK                                                                                \nT10188000008261120AAA0006     2611202611202611203710Palautus                           +000000000000050000AKTampereen Energia Oy               A                                            \nT40050261120+000000000000965755+000000000000965755\nT50067126112000000003+00000000000029204000000003-000000000000326285\n',
]);

const KTL = records([
	'02611201630SB0001234561                                                                   \n3123456000007852611202611192611205AAA00000100000000000000001232Meikäläinen 1A00000120000A \n3123456000007852611202611202611205AAA00000200000000000000123453Öljy-Keskus 1A00000190000A \n3123456000007852611202611202611205AAA00000300000000000000001232Meikäläinen 1A00000120001A \n90000020000003100000000100000012000                                                       \n',
]);

const CAMT_052 = `<?xml version="1.0" encoding="UTF-8"?>
<!-- A sample file made by the Bank File Trigger of n8n-nodes-corporate-banking for Fetch Test Event. Not a file from a bank. -->
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.052.001.02" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
	<BkToCstmrAcctRpt>
		<GrpHdr>
			<MsgId>SAMPLE-RPT-20261120-1330</MsgId>
			<CreDtTm>2026-11-20T13:30:00+01:00</CreDtTm>
			<MsgPgntn><PgNb>1</PgNb><LastPgInd>true</LastPgInd></MsgPgntn>
		</GrpHdr>
		<Rpt>
			<Id>SAMPLE-RPT-17</Id>
			<ElctrncSeqNb>17</ElctrncSeqNb>
			<CreDtTm>2026-11-20T13:30:00+01:00</CreDtTm>
			<FrToDt><FrDtTm>2026-11-20T00:00:00+01:00</FrDtTm><ToDtTm>2026-11-20T13:30:00+01:00</ToDtTm></FrToDt>
			<Acct>
				<Id><IBAN>DE89370400440532013000</IBAN></Id>
				<Ccy>EUR</Ccy>
				<Ownr><Nm>Beispiel Handels GmbH</Nm></Ownr>
			</Acct>
			<Bal>
				<Tp><CdOrPrtry><Cd>PRCD</Cd></CdOrPrtry></Tp>
				<Amt Ccy="EUR">12500.00</Amt><CdtDbtInd>CRDT</CdtDbtInd>
				<Dt><Dt>2026-11-19</Dt></Dt>
			</Bal>
			<Bal>
				<Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp>
				<Amt Ccy="EUR">14910.10</Amt><CdtDbtInd>CRDT</CdtDbtInd>
				<Dt><Dt>2026-11-20</Dt></Dt>
			</Bal>
			<Ntry>
				<Amt Ccy="EUR">2500.00</Amt>
				<CdtDbtInd>CRDT</CdtDbtInd>
				<Sts>BOOK</Sts>
				<BookgDt><Dt>2026-11-20</Dt></BookgDt>
				<ValDt><Dt>2026-11-20</Dt></ValDt>
				<AcctSvcrRef>SAMPLE-0001</AcctSvcrRef>
				<BkTxCd/>
				<NtryDtls>
					<TxDtls>
						<Refs><EndToEndId>INV-2026-1001</EndToEndId></Refs>
						<RltdPties>
							<Dbtr><Nm>Muster Maschinenbau GmbH</Nm></Dbtr>
							<DbtrAcct><Id><IBAN>DE02700202700010108669</IBAN></Id></DbtrAcct>
						</RltdPties>
						<RmtInf><Ustrd>Rechnung 1001</Ustrd></RmtInf>
					</TxDtls>
				</NtryDtls>
			</Ntry>
			<Ntry>
				<Amt Ccy="EUR">89.90</Amt>
				<CdtDbtInd>DBIT</CdtDbtInd>
				<Sts>BOOK</Sts>
				<BookgDt><Dt>2026-11-20</Dt></BookgDt>
				<ValDt><Dt>2026-11-20</Dt></ValDt>
				<AcctSvcrRef>SAMPLE-0002</AcctSvcrRef>
				<BkTxCd/>
				<NtryDtls>
					<TxDtls>
						<Refs><EndToEndId>STROM-2026-11</EndToEndId><MndtId>M-2019-000123</MndtId></Refs>
						<RltdPties>
							<Cdtr><Nm>Stadtwerke Musterstadt</Nm></Cdtr>
							<CdtrAcct><Id><IBAN>DE12500105170648489890</IBAN></Id></CdtrAcct>
						</RltdPties>
						<RmtInf><Ustrd>Abschlag Strom November 2026</Ustrd></RmtInf>
					</TxDtls>
				</NtryDtls>
			</Ntry>
		</Rpt>
	</BkToCstmrAcctRpt>
</Document>
`;

/** SWIFT FIN text: lines end with CR LF. */
const MT940 = records([
	':20:SAMPLE-940-0001',
	':25:37040044/0532013000',
	':28C:00001/001',
	':60F:C261119EUR12500,00',
	':61:2611201120CR2500,00NTRFNONREF//SAMPLE-0001',
	':86:166?00GUTSCHR. UEBERWEISUNG?100931?20EREF+INV-2026-1001?21SVW',
	'Z+Rechnung 1001?30BYLADEMMXXX?31DE02700202700010108669?32Muster ',
	'Maschinenbau GmbH',
	':61:2611201120DR89,90NDDTNONREF//SAMPLE-0002',
	':86:105?00SEPA-BASISLASTSCHRIFT?100931?20EREF+STROM-2026-11?21MRE',
	'F+M-2019-000123?22CRED+DE98ZZZ09999999999?23SVWZ+Abschlag Strom ',
	'November 2026?32Stadtwerke Musterstadt',
	':62F:C261120EUR14910,10',
	'-',
	'',
]);

const MT942 = records([
	':20:SAMPLE-942-1330',
	':25:37040044/0532013000',
	':28C:00002/001',
	':34F:EURD0,',
	':34F:EURC0,',
	':13D:2611201330+0100',
	':61:2611201120CR2500,00NTRFNONREF//SAMPLE-0001',
	':86:166?00GUTSCHR. UEBERWEISUNG?20EREF+INV-2026-1001?21SVWZ+Rechnu',
	'ng 1001?32Muster Maschinenbau GmbH',
	':61:2611201120DR89,90NDDTNONREF//SAMPLE-0002',
	':86:105?00SEPA-BASISLASTSCHRIFT?20EREF+STROM-2026-11?21SVWZ+Abschl',
	'ag Strom November 2026?32Stadtwerke Musterstadt',
	':90D:1EUR89,90',
	':90C:1EUR2500,00',
	'-',
	'',
]);

/** BAI2 (one record per line): the sender SAMPLE and the first detail's text say what it is. */
const BAI2 = records([
	'01,SAMPLE,N8NCORPBANKING,261120,0415,1,,,2/',
	'02,N8NCORPBANKING,121000248,1,261119,2400,USD,2/',
	'03,000123456789,USD,010,12500000,,,015,11734550,,,045,11234550,,,100,734550,2,,400,1500000,2,/',
	'16,142,484550,0,SAMPLE-0001,INV-2026-1001,ACH CREDIT RECEIVED ACME SUPPLY CO',
	'88,SAMPLE FILE MADE BY N8N-NODES-CORPORATE-BANKING, NOT FROM A BANK',
	'16,195,250000,V,261119,1200,SAMPLE-0002,,INCOMING WIRE GLOBEX LTD/',
	'16,475,300000,0,SAMPLE-0003,1042,CHECK PAID/',
	'16,495,1200000,0,SAMPLE-0004,PAYROLL-11,OUTGOING WIRE PAYROLL SERVICES/',
	'49,39938200,7/',
	'98,39938200,1,9/',
	'99,39938200,1,11/',
	'',
]);

export const SAMPLE_FILES: Record<BankFileFormat, SampleFile> = {
	'camt.052': {
		format: 'camt.052',
		fileName: 'SAMPLE-camt.052-intraday-report.xml',
		mimeType: 'application/xml',
		content: CAMT_052,
	},
	mt940: {
		format: 'mt940',
		fileName: 'SAMPLE-mt940-statement.sta',
		mimeType: 'text/plain',
		content: MT940,
	},
	mt942: {
		format: 'mt942',
		fileName: 'SAMPLE-mt942-intraday.sta',
		mimeType: 'text/plain',
		content: MT942,
	},
	'camt.053': {
		format: 'camt.053',
		fileName: 'SAMPLE-camt.053-statement.xml',
		mimeType: 'application/xml',
		content: CAMT_053,
	},
	'camt.054': {
		format: 'camt.054',
		fileName: 'SAMPLE-camt.054-notification.xml',
		mimeType: 'application/xml',
		content: CAMT_054,
	},
	'pain.002': {
		format: 'pain.002',
		fileName: 'SAMPLE-pain.002-status-report.xml',
		mimeType: 'application/xml',
		content: PAIN_002,
	},
	tito: {
		format: 'tito',
		fileName: 'SAMPLE-tito-statement.txt',
		mimeType: 'text/plain',
		content: TITO,
	},
	ktl: {
		format: 'ktl',
		fileName: 'SAMPLE-ktl-reference-payments.txt',
		mimeType: 'text/plain',
		content: KTL,
	},
	bai2: {
		format: 'bai2',
		fileName: 'SAMPLE-bai2-balance-report.bai',
		mimeType: 'text/plain',
		content: BAI2,
	},
};
