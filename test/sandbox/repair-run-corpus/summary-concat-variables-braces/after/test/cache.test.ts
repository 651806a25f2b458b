import { ProofCache } from '../src/verifier/cache'
