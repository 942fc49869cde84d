/**
 * License plans, defined once: the Web API's request and response schemas, its configuration (which plans are
 * self-service) and the `vigil web license` command all derive from this list.
 */
import { z } from 'zod';

/** Plans a license can be issued for, from the entry plan up. `standard` is the plan a new user gets by default. */
export const PLANS = ['standard', 'pro', 'enterprise'] as const;

/** A license plan. */
export type Plan = (typeof PLANS)[number];

/** A plan as a zod schema. */
export const planSchema = z.enum(PLANS);
