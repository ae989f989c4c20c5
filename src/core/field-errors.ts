import { AppError } from './errors.js';

/**
 * Collects every broken field rule of one request, so that the client learns all of them at
 * once: 422 `validation_failed` with `details` per field.
 */
export class FieldErrors {
  private readonly details: Record<string, string> = {};

  add(field: string, message: string): void {
    if (!(field in this.details)) this.details[field] = message;
  }

  get empty(): boolean {
    return Object.keys(this.details).length === 0;
  }

  throwIfAny(message = 'The request data is invalid'): void {
    if (!this.empty) throw new AppError('validation_failed', message, { ...this.details });
  }
}
