import type { Db } from '../../db/database.js';
import { nowIso } from '../../lib/time.js';
import * as agents from '../agents/index.js';
import * as catalog from '../catalog/index.js';
import * as customers from '../customers/index.js';
import * as locations from '../locations/index.js';
import type { Schedule, Weekly } from '../schedules/index.js';

const span = (start: string, end: string) => ({ start, end });

interface DemoAgent {
  first_name: string;
  last_name: string;
  email: string;
  phone: string;
  bio: string;
  features: { label: string; value: string }[];
  locations: string[];
  services: { key: string; priceCents?: number; duration?: number; hours?: Weekly }[];
  schedule: Schedule | null;
}

const DEMO_AGENTS: DemoAgent[] = [
  {
    first_name: 'Maria',
    last_name: 'Keller',
    email: 'maria.keller@example.com',
    phone: '+49 30 1234567',
    bio: 'Senior stylist with twelve years behind the chair.',
    features: [{ label: 'Languages', value: 'German, English' }],
    locations: ['downtown'],
    services: [{ key: 'haircut' }, { key: 'colour', priceCents: 9500 }],
    schedule: null,
  },
  {
    first_name: 'Jonas',
    last_name: 'Weber',
    email: 'jonas.weber@example.com',
    phone: '+49 30 7654321',
    bio: 'Massage therapist specialising in sports recovery.',
    features: [{ label: 'Certified', value: 'Sports massage' }],
    locations: ['riverside'],
    services: [{ key: 'massage' }, { key: 'facial' }],
    // Tuesday to Saturday with a lunch break: his own hours instead of the site's.
    schedule: {
      weekly: {
        monday: [],
        tuesday: [span('10:00', '13:00'), span('14:00', '18:00')],
        wednesday: [span('10:00', '13:00'), span('14:00', '18:00')],
        thursday: [span('10:00', '13:00'), span('14:00', '18:00')],
        friday: [span('10:00', '13:00'), span('14:00', '18:00')],
        saturday: [span('10:00', '15:00')],
        sunday: [],
      },
      exceptions: [],
    },
  },
  {
    first_name: 'Aylin',
    last_name: 'Demir',
    email: 'aylin.demir@example.com',
    phone: '+49 30 5550123',
    bio: 'Stylist and beautician; works at both studios.',
    features: [{ label: 'Languages', value: 'German, Turkish, English' }],
    locations: ['downtown', 'riverside'],
    services: [
      { key: 'haircut' },
      // Only mornings for facials, and she takes a little longer.
      {
        key: 'facial',
        duration: 60,
        hours: {
          monday: [span('09:00', '12:00')],
          tuesday: [],
          wednesday: [span('09:00', '12:00')],
          thursday: [],
          friday: [span('09:00', '12:00')],
          saturday: [],
          sunday: [],
        },
      },
    ],
    schedule: null,
  },
];

/** A believable small site: every service has an agent at a location who works this week. */
const DEMO = {
  categories: ['Hair', 'Wellness'],
  locations: [
    { key: 'downtown', name: 'Downtown Studio', full_address: '12 Market Street, 10115 Berlin', order_number: 1 },
    { key: 'riverside', name: 'Riverside Spa', full_address: '48 Uferweg, 10559 Berlin', order_number: 2 },
  ],
  services: [
    { key: 'haircut', name: 'Haircut', category: 'Hair', duration: 30, price: 3500, short: 'Wash, cut and style.' },
    { key: 'colour', name: 'Hair Colouring', category: 'Hair', duration: 90, price: 8500, priceMax: 12000, short: 'Full colour or highlights.' },
    { key: 'massage', name: 'Deep Tissue Massage', category: 'Wellness', duration: 60, price: 7000, short: 'Firm massage for tense muscles.' },
    { key: 'facial', name: 'Facial Treatment', category: 'Wellness', duration: 45, price: 5500, short: 'Cleansing and hydrating facial.' },
  ],
  agents: DEMO_AGENTS,
  customers: [
    { first_name: 'Emma', last_name: 'Schmidt', email: 'emma.schmidt@example.com', phone: '+49 151 1111111' },
    { first_name: 'Lukas', last_name: 'Fischer', email: 'lukas.fischer@example.com', phone: '+49 151 2222222' },
    { first_name: 'Sofia', last_name: 'Rossi', email: 'sofia.rossi@example.com', phone: '+39 333 3333333' },
  ],
};

export interface SeedCounts {
  categories: number;
  locations: number;
  services: number;
  agents: number;
  customers: number;
}

/**
 * Adds the demo records that are not there yet (matched by name, or by email for agents and
 * customers), in one transaction. Records already present are left as they are, so running it
 * again adds nothing.
 */
export async function seedDemo(db: Db): Promise<SeedCounts> {
  return db.transaction().execute(async (trx) => {
    const created: SeedCounts = { categories: 0, locations: 0, services: 0, agents: 0, customers: 0 };
    const at = nowIso();

    const categoryIds = new Map<string, number>();
    for (const name of DEMO.categories) {
      let category = await catalog.findCategoryByName(trx, 'service_categories', name);
      if (!category) {
        category = await catalog.insertCategory(trx, 'service_categories', name);
        created.categories++;
      }
      categoryIds.set(name, category.id);
    }

    const locationIds = new Map<string, number>();
    for (const l of DEMO.locations) {
      let row = await locations.findLocationByName(trx, l.name);
      if (!row) {
        row = await locations.insertLocation(trx, {
          name: l.name,
          full_address: l.full_address,
          status: 'active',
          category_id: null,
          order_number: l.order_number,
          selection_image_id: 0,
          created_at: at,
          updated_at: at,
        });
        created.locations++;
      }
      locationIds.set(l.key, row.id);
    }

    const serviceIds = new Map<string, number>();
    for (const s of DEMO.services) {
      let row = await catalog.findServiceByName(trx, s.name);
      if (!row) {
        row = await catalog.insertService(trx, {
          name: s.name,
          short_description: s.short,
          description: s.short,
          duration: s.duration,
          price_min_cents: s.price,
          price_max_cents: s.priceMax ?? s.price,
          charge_amount_cents: s.price,
          deposit_amount_cents: 0,
          capacity_min: 1,
          capacity_max: 1,
          order_number: serviceIds.size + 1,
          selection_image_id: 0,
          status: 'active',
          visibility: 'visible',
          category_id: categoryIds.get(s.category) ?? null,
          created_at: at,
          updated_at: at,
        });
        created.services++;
      }
      serviceIds.set(s.key, row.id);
    }

    for (const a of DEMO.agents) {
      const existing = await agents.findAgentByEmail(trx, a.email);
      if (existing) continue;
      const agent = await agents.insertAgent(trx, {
        first_name: a.first_name,
        last_name: a.last_name,
        display_name: null,
        email: a.email,
        phone: a.phone,
        bio: a.bio,
        features: JSON.stringify(a.features),
        status: 'active',
        schedule: a.schedule ? JSON.stringify(a.schedule) : null,
        created_at: at,
        updated_at: at,
      });
      await agents.setAgentLocations(trx, agent.id, a.locations.map((key) => locationIds.get(key)!));
      await agents.setAgentServices(
        trx,
        agent.id,
        a.services.map((s) => ({
          serviceId: serviceIds.get(s.key)!,
          custom: { priceCents: s.priceCents ?? null, duration: s.duration ?? null, hours: s.hours ? JSON.stringify(s.hours) : null },
        })),
      );
      created.agents++;
    }

    for (const c of DEMO.customers) {
      const email_lower = c.email.toLowerCase();
      const existing = await customers.findCustomerIdByEmail(trx, email_lower);
      if (existing !== undefined) continue;
      await customers.insertCustomer(trx, customers.newCustomerRow({ first_name: c.first_name, last_name: c.last_name, email: c.email, email_lower, phone: c.phone }, at));
      created.customers++;
    }
    return created;
  });
}
