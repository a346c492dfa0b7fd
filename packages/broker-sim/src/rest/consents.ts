/**
 * Consent sessions of the API-key and partner login flows. A consent is GENERATED, then a browser
 * login turns it into a tokenId, then consume-consent exchanges the tokenId for a token grant and
 * the consent ends. Sessions live 10 minutes (the spec does not give the lifetime of a tokenId;
 * the simulator picks one so abandoned sessions do not accumulate) and the table is bounded.
 */
import { randomUUID } from 'node:crypto';

export const CONSENT_TTL_MS = 10 * 60 * 1000;
/** Spec: up to 25 consentAppId per user per day. */
export const MAX_CONSENTS_PER_DAY = 25;
const MAX_SESSIONS = 10_000;

export interface ConsentSession {
  readonly kind: 'APP' | 'PARTNER';
  readonly consentId: string;
  /** API-key flow: the account that owns the app; partner flow: filled in by the login. */
  clientId: string | undefined;
  /** appId or partnerId that created it; consume must present the same one. */
  readonly ownerId: string;
  readonly redirectUrl: string;
  tokenId: string | undefined;
  readonly createdMs: number;
}

export class ConsentStore {
  private readonly byConsent = new Map<string, ConsentSession>();
  private readonly byToken = new Map<string, ConsentSession>();
  constructor(private readonly now: () => number) {}

  private prune(): void {
    const t = this.now();
    for (const [id, s] of this.byConsent) {
      if (t - s.createdMs < CONSENT_TTL_MS && this.byConsent.size < MAX_SESSIONS) break;
      this.byConsent.delete(id);
      if (s.tokenId) this.byToken.delete(s.tokenId);
    }
  }

  create(
    kind: 'APP' | 'PARTNER',
    ownerId: string,
    clientId: string | undefined,
    redirectUrl: string,
  ): ConsentSession {
    this.prune();
    const s: ConsentSession = {
      kind,
      consentId: randomUUID(),
      clientId,
      ownerId,
      redirectUrl,
      tokenId: undefined,
      createdMs: this.now(),
    };
    this.byConsent.set(s.consentId, s);
    return s;
  }

  /** A GENERATED session still inside its lifetime. */
  pending(kind: 'APP' | 'PARTNER', consentId: string): ConsentSession | undefined {
    const s = this.byConsent.get(consentId);
    if (!s || s.kind !== kind || s.tokenId !== undefined) return undefined;
    if (this.now() - s.createdMs >= CONSENT_TTL_MS) return undefined;
    return s;
  }

  issueTokenId(s: ConsentSession, clientId: string): string {
    s.clientId = clientId;
    s.tokenId = randomUUID();
    this.byToken.set(s.tokenId, s);
    return s.tokenId;
  }

  /** Takes the session of a tokenId once; the consent ends with it. */
  consume(kind: 'APP' | 'PARTNER', tokenId: string, ownerId: string): ConsentSession | undefined {
    const s = this.byToken.get(tokenId);
    if (!s || s.kind !== kind || s.ownerId !== ownerId) return undefined;
    if (this.now() - s.createdMs >= CONSENT_TTL_MS) return undefined;
    this.byToken.delete(tokenId);
    this.byConsent.delete(s.consentId);
    return s;
  }
}
