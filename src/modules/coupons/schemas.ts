import { Type, type Static, type TSchemaOptions } from 'typebox';
import { pageParams } from '../../core/pagination.js';
import { textPattern } from '../../http/text-patterns.js';
import { MAX_AMOUNT, SiteDateTime } from '../../http/schemas.js';
import { envelopeB, envelopeBList } from '../../core/envelope.js';

export const DISCOUNT_TYPES = ['percent', 'fixed_amount'] as const;
export const COUPON_STATUSES = ['active', 'inactive'] as const;

const DateOrNull = Type.Union([Type.Null(), Type.String({ format: 'date', description: 'YYYY-MM-DD' })]);

export const Coupon = Type.Object({
  id: Type.Integer(),
  code: Type.String(),
  name: Type.String(),
  description: Type.String(),
  discount_type: Type.Enum(DISCOUNT_TYPES),
  discount_value: Type.Number({ description: 'Percent (percent) or amount (fixed_amount)' }),
  status: Type.Enum(COUPON_STATUSES),
  active_from: Type.Union([Type.Null(), Type.String()]),
  active_to: Type.Union([Type.Null(), Type.String()]),
  usage_limit: Type.Integer({ description: '0 means unlimited' }),
  usage_count: Type.Integer({ description: 'Orders that have the coupon applied' }),
  min_order_amount: Type.Number(),
  max_discount_amount: Type.Number({ description: 'Caps a percent discount when above 0' }),
  created_at: SiteDateTime,
  updated_at: SiteDateTime,
}, { title: 'Coupon' });
export type CouponView = Static<typeof Coupon>;

// Codes travel in paths: no spaces or URL delimiters.
const Code = Type.String({ minLength: 1, maxLength: 50, pattern: textPattern('^[^\\s/?#%]+$', 'must not contain spaces or any of / ? # %'), description: 'Unique, case-insensitively' });

const Name = (options: TSchemaOptions = {}) => Type.String({ minLength: 1, maxLength: 100, pattern: textPattern('\\S', 'must not be blank'), ...options });
const Description = (options: TSchemaOptions = {}) => Type.String({ maxLength: 1000, ...options });
const DiscountType = (options: TSchemaOptions = {}) => Type.Enum(DISCOUNT_TYPES, options);
const DiscountValue = (options: TSchemaOptions = {}) =>
  Type.Number({ minimum: 0, maximum: MAX_AMOUNT, description: 'Percent (0 to 100) or amount', ...options });
const Status = (options: TSchemaOptions = {}) => Type.Enum(COUPON_STATUSES, options);
const UsageLimit = (options: TSchemaOptions = {}) =>
  Type.Integer({ minimum: 0, maximum: 1_000_000_000, description: '0 means unlimited', ...options });
const MinOrderAmount = (options: TSchemaOptions = {}) => Type.Number({ minimum: 0, maximum: MAX_AMOUNT, ...options });
const MaxDiscountAmount = (options: TSchemaOptions = {}) =>
  Type.Number({ minimum: 0, maximum: MAX_AMOUNT, description: 'Caps a percent discount when above 0', ...options });

export const CouponCreateBody = Type.Object(
  {
    code: Code,
    name: Name(),
    description: Type.Optional(Description({ default: '' })),
    discount_type: Type.Optional(DiscountType({ default: 'percent' })),
    discount_value: Type.Optional(DiscountValue({ default: 0 })),
    status: Type.Optional(Status({ default: 'active' })),
    active_from: Type.Optional(DateOrNull),
    active_to: Type.Optional(DateOrNull),
    usage_limit: Type.Optional(UsageLimit({ default: 0 })),
    min_order_amount: Type.Optional(MinOrderAmount({ default: 0 })),
    max_discount_amount: Type.Optional(MaxDiscountAmount({ default: 0 })),
  },
  { additionalProperties: false },
);
export type CouponCreateBody = Static<typeof CouponCreateBody>;

export const CouponUpdateBody = Type.Object(
  {
    name: Type.Optional(Name()),
    description: Type.Optional(Description()),
    discount_type: Type.Optional(DiscountType()),
    discount_value: Type.Optional(DiscountValue()),
    status: Type.Optional(Status()),
    active_from: Type.Optional(DateOrNull),
    active_to: Type.Optional(DateOrNull),
    usage_limit: Type.Optional(UsageLimit()),
    min_order_amount: Type.Optional(MinOrderAmount()),
    max_discount_amount: Type.Optional(MaxDiscountAmount()),
  },
  { additionalProperties: false },
);
export type CouponUpdateBody = Static<typeof CouponUpdateBody>;

export const CouponListQuery = Type.Object({
  ...pageParams(10),
  status: Type.Optional(Type.Enum(COUPON_STATUSES)),
  discount_type: Type.Optional(Type.Enum(DISCOUNT_TYPES)),
});
export type CouponListQuery = Static<typeof CouponListQuery>;

export const CodeParams = Type.Object({ code: Type.String({ minLength: 1, maxLength: 50 }) });

export const CouponResponse = envelopeB(Coupon);
export const CouponListResponse = envelopeBList(Coupon);
export const CouponDeleted = envelopeB(Type.Object({ id: Type.Integer(), deleted: Type.Literal(true) }));
