"""The LLM agent of the optimizer: an OpenAI-compatible chat client, answer policing,
prompts for a planner and a coder, and the LLMProposer that drives them with tools."""
from .agent import LLMProposer, ToolSpec
from .answer import Answer, BadAnswer, extract_answer
from .client import ChatClient, ChatResult, LLMConfig, LLMError, ToolCall

__all__ = [
    "Answer", "BadAnswer", "ChatClient", "ChatResult", "LLMConfig", "LLMError", "LLMProposer",
    "ToolCall", "ToolSpec", "extract_answer",
]
