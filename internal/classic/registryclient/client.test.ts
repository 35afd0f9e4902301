import * as grpc from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { RegistryStatus } from './client.ts';

describe('RegistryStatus', () => {
  it('holds every gRPC status code with @grpc/grpc-js’s numbers (spelled out so the library loads only with a client)', () => {
    const names = Object.entries(grpc.status).filter(([k]) => Number.isNaN(Number(k)));
    expect(RegistryStatus).toEqual(Object.fromEntries(names));
  });
});
