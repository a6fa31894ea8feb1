import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { Redis } from 'ioredis';
import type { BusTarget } from './bus.ts';

export interface RedisTarget {
  target: BusTarget;
  close(): Promise<void>;
}

/**
 * An event target that fans events out through Redis pub/sub, so a write committed on
 * one instance reaches subscribers on every instance. Redis may drop messages (a
 * restart, a network cut); subscribers recover them from the workspace's event log.
 */
export function createRedisTarget(url: string, onError: (error: Error) => void = () => {}): RedisTarget {
  const options = { lazyConnect: false, maxRetriesPerRequest: 2, enableAutoPipelining: true } as const;
  const publisher = new Redis(url, options);
  const subscriber = new Redis(url, { ...options, maxRetriesPerRequest: null });
  publisher.on('error', onError);
  subscriber.on('error', onError);
  // A publish that fails while Redis is away must not become an unhandled rejection:
  // the event is already committed and subscribers will read it from the log.
  const guardedPublisher = new Proxy(publisher, {
    get(target, prop, receiver) {
      if (prop === 'publish') {
        return (channel: string, message: string) =>
          target.publish(channel, message).catch((error: Error) => {
            onError(error);
            return 0;
          });
      }
      return Reflect.get(target, prop, receiver);
    },
  });
  const target = createRedisEventTarget<CustomEvent>({ publishClient: guardedPublisher, subscribeClient: subscriber });
  return {
    target: target as unknown as BusTarget,
    close: async () => {
      await Promise.allSettled([publisher.quit(), subscriber.quit()]);
      publisher.disconnect();
      subscriber.disconnect();
    },
  };
}
