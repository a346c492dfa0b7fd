import { randomBytes } from 'node:crypto';
import { invalidArgument } from '../core/errors.js';

/** correlationId: max 30 characters of letters, digits, space, underscore and hyphen. */
const CORRELATION_ID = /^[a-zA-Z0-9 _-]{1,30}$/;

export function checkCorrelationId(value: string | undefined): void {
  if (value !== undefined && !CORRELATION_ID.test(value)) {
    throw invalidArgument('correlationId must be 1 to 30 characters of a-z, A-Z, 0-9, space, _ or -');
  }
}

/**
 * A correlationId for callers that gave none. Placement is never retried blindly; with an id the
 * caller can still find out whether an order whose answer was lost exists.
 */
export function newCorrelationId(): string {
  return `fp-${randomBytes(12).toString('hex')}`;
}

export function checkQuantity(value: number, name = 'quantity', fractional = false): void {
  const ok = typeof value === 'number' && Number.isFinite(value) && value > 0;
  if (!ok || (!fractional && !Number.isInteger(value))) {
    throw invalidArgument(`${name} must be a positive ${fractional ? 'number' : 'integer'}`);
  }
}

export function checkPrice(value: number | undefined, name: string): void {
  if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value) || value < 0)) {
    throw invalidArgument(`${name} must be a finite number >= 0`);
  }
}

export function checkId(value: string, name: string): void {
  if (typeof value !== 'string' || value.length === 0)
    throw invalidArgument(`${name} must be a non-empty string`);
}

/** What every placement of a regular, super or forever order is checked for before it is sent. */
export function checkPlacement(request: {
  correlationId?: string;
  securityId: string;
  quantity: number;
  price?: number;
}): void {
  checkCorrelationId(request.correlationId);
  checkId(request.securityId, 'securityId');
  checkQuantity(request.quantity);
  checkPrice(request.price, 'price');
}

export function lostOrderHint(correlationId: string): string {
  return `the order may or may not have been placed: look it up by correlationId "${correlationId}"`;
}
