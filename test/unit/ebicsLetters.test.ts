/** The initialisation letters print the certificates' names as people read them. */
import { generateSubscriberKeys, initialisationLetters } from '../../nodes/shared/ebics';

test('a name with a comma is printed as typed, not in its escaped certificate form', async () => {
	const keys = await generateSubscriberKeys({ subject: { commonName: 'Erika Mustermann, Example GmbH', organization: 'PARTNER1' } });
	const letters = await initialisationLetters(
		{ hostId: 'HOST', partnerId: 'PARTNER1', userId: 'USER1', subscriberName: 'Erika Mustermann' },
		{ signature: keys.signature.certificatePem, authentication: keys.authentication.certificatePem, encryption: keys.encryption.certificatePem },
	);
	expect(letters.letters[0].keys[0].subject).toBe('CN=Erika Mustermann, Example GmbH, O=PARTNER1');
	expect(letters.html).toContain('<td>CN=Erika Mustermann, Example GmbH, O=PARTNER1</td>');
	expect(letters.html).not.toContain('\\,');
});
