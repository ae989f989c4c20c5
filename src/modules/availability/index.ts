export { conflictOf, daySpan, inZone, isWithin, localInstant, storedDayBounds, wallClockBoundary, workingSpans, type Span } from './engine.js';
export { bumpBusyVersions, busyBookings, busyBookingsOfAgent, busyBookingsOfRanges, connectedAgents, findService, hasDefaultLocation, isBusyWithin, isoBound, isoOf, LAST_STORABLE_INSTANT, lookbackOf, type AgentBooking, type ConnectionRow, type ServiceRow } from './repository.js';
export { default as availabilityRoutes } from './routes.js';
export { AgentChoice, DateText, TimeText } from './schemas.js';
export { candidateOf, freeStartsToMove, parseAgentChoice, serviceWindow, slotContext, slotContextOf, suggestedStarts, type BookingToMove } from './service.js';
export { type Candidate, type SlotContext } from './candidate.js';
export { anyCandidates, bulkBusyReads, freeCandidate, spanOf, startInstant, workingCandidates, type AgentReads, type BusyReads, type ChoiceOptions, type RequestedBooking } from './agent-choice.js';
