// What an answer's `cost` counts (MD2Card charges a credit per card): the cards its images hold,
// one per image and one per page of a PDF, which holds every card of its request.

/** The cards that images hold: one per image, a PDF's pages each. */
export const cardsIn = (images: ReadonlyArray<{ pages?: number }>): number => images.reduce((cards, image) => cards + (image.pages ?? 1), 0);
