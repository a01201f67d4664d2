"""Stock filters for a handoff's `input_filter` (openai-agents' `handoff_filters`).

```python
from tooluse import handoff, handoff_filters

handoff(agent, input_filter=handoff_filters.remove_all_tools)
```
"""

from .agents._handoff_input import remove_all_tools

__all__ = ["remove_all_tools"]
