// bin/booking.js, on the sources instead of the build.
import { main } from '../../src/cli.js';

await main();
