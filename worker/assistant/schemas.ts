// The question asked on POST /console/api/assistant.
import * as z from "zod";
import { text } from "../http/text";
import { QUESTION_MAX_CHARS } from "./prompt";

export const AskRequest = z
  .strictObject({
    orgId: z.uuid().describe("The organization the owner asks from; the question goes to the model without any of its data."),
    question: text({ min: 1, max: QUESTION_MAX_CHARS }).describe(`The question, at most ${QUESTION_MAX_CHARS} characters. Never logged or stored.`),
  })
  .meta({ id: "AssistantQuestion" });
