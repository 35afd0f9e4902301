// How upstream prints several errors as one: apimachinery's utilerrors.NewAggregate(errs).Error().

/** One message bare, several as `[a, b]`. */
export const aggregateMessages = (messages: readonly string[]): string => (messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`);
