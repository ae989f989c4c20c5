export { conflictOf, daySpan, inZone, isWithin, localInstant, storedDayBounds, wallClockBoundary, workingSpans, type Span } from './engine.js';
export { bumpBusyVersions, connectedAgents, findService, hasDefaultLocation, isoBound, isoOf, LAST_STORABLE_INSTANT, type AgentBooking, type ConnectionRow, type ServiceRow } from './repository.js';
export { default as availabilityRoutes } from './routes.js';
export { AgentChoice, DateText, TimeText } from './schemas.js';
export { candidateOf, freeStartsToMove, parseAgentChoice, serviceWindow, slotContextOf, suggestedStarts, type BookingToMove } from './service.js';
export { type Candidate, type SlotContext } from './candidate.js';
export { anyCandidates, bulkBusyReads, freeCandidate, spanOf, startInstant, workingCandidates, type AgentReads, type BusyReads, type ChoiceOptions, type RequestedBooking } from './agent-choice.js';
