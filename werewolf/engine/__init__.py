"""Pure rules of the role games (版杀): arrives with the werewolf issue."""
