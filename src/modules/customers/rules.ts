import { DateTime } from 'luxon';
import type { Updateable } from 'kysely';
import { AppError } from '../../core/errors.js';
import { MAX_CUSTOM_FIELD_VALUE_LENGTH } from '../../core/limits.js';
import { countryCode } from './countries.js';
import type { CustomersTable } from './table.js';

/** Field name → what is wrong with it. */
export type FieldErrors = Record<string, string>;
export type CustomFieldValue = string | number | boolean;

/** The customer fields a create or update request may carry (each body schema allows a subset). */
export interface CustomerInput {
  first_name?: string;
  last_name?: string;
  email?: string | null;
  phone?: string | null;
  status?: string;
  date_of_birth?: string | null;
  gender?: string | null;
  address?: string | null;
  city?: string | null;
  state?: string | null;
  zipcode?: string | null;
  country?: string | null;
  notes?: string | null;
  custom_fields?: Record<string, unknown>;
  is_guest?: boolean;
  host_user_id?: number | null;
  avatar_image_id?: number | null;
  preferred_agent_id?: number | null;
  preferred_location_id?: number | null;
}

export type CustomerColumns = Omit<Updateable<CustomersTable>, 'id' | 'custom_fields' | 'customer_code' | 'created_at' | 'updated_at'>;

export interface CleanedInput {
  /** Only the columns the input supplied, normalised. */
  columns: CustomerColumns;
  /** Supplied custom fields; null marks a key to remove. */
  customFields: Record<string, CustomFieldValue | null> | undefined;
  errors: FieldErrors;
}

export interface RuleOptions {
  /** Spec: the country is an ISO 3166-1 alpha-2 code on update; create takes free text. */
  isoCountry: boolean;
  /** Today in the site timezone (YYYY-MM-DD): a birth date may not lie after it. */
  today: string;
}

/** Lengths count characters as people see them in NFC text, not UTF-16 code units. */
const charCount = (text: string): number => [...text].length;

const NAME = /^[\p{L}\p{M} -]+$/u;
const LETTER = /\p{L}/u;
// The HTML form rule for addresses, with a dot required in the domain.
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;
const PHONE = /^\+?[0-9 ().-]+$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

const MAX_TEXT: Record<'address' | 'city' | 'state' | 'zipcode' | 'country', number> = {
  address: 255,
  city: 100,
  state: 100,
  zipcode: 20,
  country: 100,
};

export function nameProblem(name: string): string | undefined {
  const length = charCount(name);
  if (length < 2 || length > 50) return `must be 2 to 50 characters (got ${length})`;
  if (!NAME.test(name) || !LETTER.test(name)) return 'may contain only letters, spaces and hyphens';
  return undefined;
}

export function emailProblem(email: string): string | undefined {
  if (charCount(email) > 100) return 'must be at most 100 characters';
  if (!EMAIL.test(email)) return 'is not a valid email address';
  return undefined;
}

export function phoneProblem(phone: string): string | undefined {
  if (charCount(phone) > 20) return 'must be at most 20 characters';
  const digits = phone.replace(/\D/g, '').length;
  if (!PHONE.test(phone) || digits < 6 || digits > 15) {
    return 'is not a valid phone number (6 to 15 digits, optional leading +, spaces, dots, hyphens, parentheses)';
  }
  return undefined;
}

function birthDateProblem(date: string, today: string): string | undefined {
  if (!ISO_DATE.test(date) || !DateTime.fromISO(date, { zone: 'utc' }).isValid) return 'must be a date YYYY-MM-DD';
  if (date > today) return 'must not be in the future';
  return undefined;
}

/** Trimmed text, or null when absent-by-emptiness (an optional field sent as null or ""). */
function optionalText(value: string | null): string | null {
  if (value === null) return null;
  const text = value.normalize('NFC').trim();
  return text === '' ? null : text;
}

function cleanCustomFields(input: Record<string, unknown>, errors: FieldErrors): Record<string, CustomFieldValue | null> {
  const fields: Record<string, CustomFieldValue | null> = {};
  for (const [rawKey, value] of Object.entries(input)) {
    const key = rawKey.trim();
    if (key === '' || charCount(key) > 100) {
      errors.custom_fields = 'keys must be 1 to 100 characters';
      continue;
    }
    if (value === null || value === '') fields[key] = null;
    else if (typeof value === 'string' && charCount(value) > MAX_CUSTOM_FIELD_VALUE_LENGTH) {
      errors[`custom_fields.${key}`] = `must be at most ${MAX_CUSTOM_FIELD_VALUE_LENGTH} characters`;
    } else if (typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) {
      fields[key] = value;
    } else {
      errors[`custom_fields.${key}`] = 'must be a string, number or boolean (null or "" removes the key)';
    }
  }
  return fields;
}

/**
 * Applies the spec's field rules to whatever the input supplies and normalises it (NFC, trimmed,
 * empty optional text → null, lower-cased email key, upper-case country code). Rules, not types:
 * the body schema has already checked types and enum values.
 */
export function cleanCustomerInput(input: CustomerInput, options: RuleOptions): CleanedInput {
  const errors: FieldErrors = {};
  const columns: CustomerColumns = {};

  for (const field of ['first_name', 'last_name'] as const) {
    const raw = input[field];
    if (raw === undefined) continue;
    const name = raw.normalize('NFC').trim();
    const problem = nameProblem(name);
    if (problem) errors[field] = problem;
    else columns[field] = name;
  }

  if (input.email !== undefined) {
    const email = optionalText(input.email);
    const problem = email === null ? undefined : emailProblem(email);
    if (problem) errors.email = problem;
    else {
      columns.email = email;
      columns.email_lower = email?.toLowerCase() ?? null;
    }
  }

  if (input.phone !== undefined) {
    const phone = optionalText(input.phone);
    const problem = phone === null ? undefined : phoneProblem(phone);
    if (problem) errors.phone = problem;
    else columns.phone = phone;
  }

  if (input.date_of_birth !== undefined) {
    const date = optionalText(input.date_of_birth);
    const problem = date === null ? undefined : birthDateProblem(date, options.today);
    if (problem) errors.date_of_birth = problem;
    else columns.date_of_birth = date;
  }

  for (const field of ['address', 'city', 'state', 'zipcode', 'country'] as const) {
    const raw = input[field];
    if (raw === undefined) continue;
    const text = optionalText(raw);
    if (text !== null && charCount(text) > MAX_TEXT[field]) {
      errors[field] = `must be at most ${MAX_TEXT[field]} characters`;
    } else if (field === 'country' && options.isoCountry && text !== null) {
      const code = countryCode(text);
      if (code === undefined) errors.country = 'must be an ISO 3166-1 alpha-2 country code, e.g. DE';
      else columns.country = code;
    } else {
      columns[field] = text;
    }
  }

  if (input.notes !== undefined) {
    // Notes keep their layout; only an all-blank note counts as none.
    const notes = input.notes === null || input.notes.trim() === '' ? null : input.notes.normalize('NFC');
    if (notes !== null && charCount(notes) > 1000) errors.notes = `must be at most 1000 characters (got ${charCount(notes)})`;
    else columns.notes = notes;
  }

  if (input.status !== undefined) columns.status = input.status;
  if (input.gender !== undefined) columns.gender = input.gender;
  if (input.is_guest !== undefined) columns.is_guest = input.is_guest ? 1 : 0;
  if (input.host_user_id !== undefined) columns.host_user_id = input.host_user_id;
  if (input.avatar_image_id !== undefined) columns.avatar_image_id = input.avatar_image_id;
  if (input.preferred_agent_id !== undefined) columns.preferred_agent_id = input.preferred_agent_id;
  if (input.preferred_location_id !== undefined) columns.preferred_location_id = input.preferred_location_id;

  const customFields = input.custom_fields === undefined ? undefined : cleanCustomFields(input.custom_fields, errors);
  return { columns, customFields, errors };
}

/** Existing fields with the patch applied: null removes a key. */
export function mergeCustomFields(
  existing: Record<string, unknown>,
  patch: Record<string, CustomFieldValue | null>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...existing };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/**
 * Contract §3: the refusal of an email in use. `existingId` is the customer who has it; where
 * that is not known (another request committed it meanwhile), POST /customers leaves the detail
 * out (undefined) and the bookings API reports it as null.
 */
export function emailTaken(email: string, existingId: number | null | undefined): AppError {
  return new AppError('email_already_exists', `A customer with the email ${email} already exists`, {
    email,
    ...(existingId === undefined ? {} : { existing_customer_id: existingId }),
  });
}
