/** Client request codes (service-interface.md, "Client requests"); requests are JSON text frames. */
export const RequestCode = {
  Disconnect: 12,
  SubscribeTrade: 15,
  UnsubscribeTrade: 16,
  SubscribeOhlc: 17,
  UnsubscribeOhlc: 18,
} as const;
export type RequestCodeValue = (typeof RequestCode)[keyof typeof RequestCode];
export type SubscriptionRequestCode = 15 | 16 | 17 | 18;

export interface InstrumentRef {
  exchangeSegment: 'INX_EQ';
  securityId: string;
}

export type ClientRequest =
  | { requestCode: 12 }
  | { requestCode: SubscriptionRequestCode; instrumentCount: number; instrumentList: InstrumentRef[] };

/** Spec limit: instruments in one subscribe/unsubscribe request. */
export const MAX_INSTRUMENTS_PER_REQUEST = 100;
/** Spec limit: subscriptions one feed connection may hold. */
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 5000;

export function isSubscriptionRequestCode(code: unknown): code is SubscriptionRequestCode {
  return code === 15 || code === 16 || code === 17 || code === 18;
}

/**
 * Security ids travel as strings in requests but as int32 in packets, so a valid id is a decimal
 * string of a non-negative int32.
 */
export function securityIdProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return `must be a string, got ${typeof value}`;
  if (!/^[0-9]{1,10}$/.test(value)) return 'must be a decimal string of 1 to 10 digits';
  if (Number(value) > 0x7fffffff) return 'must not exceed 2147483647 (the wire carries int32)';
  return undefined;
}
