// Path parameters: required, non-empty, and always percent-encoded so an id can never change the path.
import { RequestValidationError } from './validation.js';

export function pathParam(operation: string, field: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') {
    throw new RequestValidationError(operation, [{ field, rule: 'is required (a non-empty string)' }]);
  }
  // Encoding leaves dots alone, and a server may resolve these as path segments.
  if (value === '.' || value === '..')
    throw new RequestValidationError(operation, [{ field, rule: 'must not be . or ..' }]);
  return encodeURIComponent(value);
}
